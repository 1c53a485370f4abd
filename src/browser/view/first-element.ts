import type { ElementHandle, Locator } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'

/**
 * Reads of an element the last view found. `Locator.evaluate` first waits for
 * its element by polling once a frame; finding the element without waiting
 * (`elementHandles`) costs about half of that, once, and each read through its
 * handle under a millisecond (`bench/element-reads.bench.ts` prints the
 * figures). Every action reads its element once or twice before it acts, on
 * the step's critical path, so actions read through a handle.
 */

/** Bound on a look for an element that is on the page or not: no waiting for it to come. */
const lookupMs = 3000

/** The element a locator finds first, as a handle (undefined: none now); any others are let go. */
export async function firstElement(
  locator: Locator,
  signal: AbortSignal,
): Promise<ElementHandle | undefined> {
  try {
    const [first, ...others] = await withDeadline(
      locator.elementHandles(),
      lookupMs,
      signal,
      'element lookup',
    )
    for (const other of others) void other.dispose().catch(() => {})
    return first
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    return undefined
  }
}

/** Runs `fn` on the element a locator finds first; throws when it finds none. */
export async function evaluateFirst<Arg, Result>(
  locator: Locator,
  fn: (element: Element, arg: Arg) => Result,
  arg: Arg,
  signal: AbortSignal,
): Promise<Result> {
  const element = await firstElement(locator, signal)
  if (!element) throw new Error('the element is no longer on the page')
  try {
    return await evaluateElement(element, fn, arg, signal)
  } finally {
    void element.dispose().catch(() => {})
  }
}

/** Runs `fn` on an element, bounded: a page busy in a loop of its own cannot hold the step. */
export function evaluateElement<Arg, Result>(
  element: ElementHandle,
  fn: (element: Element, arg: Arg) => Result,
  arg: Arg,
  signal: AbortSignal,
): Promise<Result> {
  // Playwright types an argument by what it serializes; callers pass plain data.
  const run = fn as (element: Element, arg: unknown) => Result
  return withDeadline(
    (element as ElementHandle<Element>).evaluate(run, arg as unknown),
    lookupMs,
    signal,
    'element read',
  )
}
