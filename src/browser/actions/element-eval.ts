import type { ElementHandle, Locator } from 'playwright-core'

/** What a pointer action acts through: the scan's own handle of a marked element, else its locator. */
export type ActionTarget = Locator | ElementHandle

/**
 * Runs `fn` on the element behind a locator or a handle. A locator whose
 * element is gone would wait out Playwright's timeout; two seconds say enough.
 */
export function evaluateOn<Result, Arg = undefined>(
  target: ActionTarget,
  fn: (element: Element, arg: Arg) => Result,
  arg?: Arg,
): Promise<Result> {
  // Playwright types an argument by what it serializes; `Arg` is already known to be plain data by the callers.
  const run = fn as (element: Element, arg: unknown) => Result
  if (isLocator(target)) return target.evaluate(run, arg as unknown, { timeout: 2000 })
  return (target as ElementHandle<Element>).evaluate(run, arg as unknown)
}

function isLocator(target: ActionTarget): target is Locator {
  return 'first' in target
}
