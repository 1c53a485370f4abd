import type { Locator, Page } from 'playwright-core'
import type { CallOutcome, ElementTarget, Expectation } from '../../recording/schema.ts'
import { isAbortError, sleep } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { evaluateFirst } from './first-element.ts'
import { capturePage } from './page-capture.ts'
import { contextOf } from './ref-assignment.ts'
import { type LatestCapture, locatorFor, type RefEntry, type RefRegistry } from './stable-refs.ts'
import { describeElement, fieldValue, type InPageDescription, textOnPage } from './target-page.ts'
import { interactiveRoles } from './view-render.ts'
import { findNode, type ViewNode } from './view-tree.ts'

/**
 * Durable targets: the element behind a ref described so that a later run on
 * a fresh page can find it again (role, name, distinguishing context, tag and
 * a few attributes), and found again by that description. Recordings and
 * replays use only these, never refs or Playwright's own handles.
 */

/** A durable target found on the current page (as a ref of the latest capture), or why not. */
export type TargetMatch = { ok: true; ref: string } | { ok: false; missing: boolean; reason: string }

/** Containers read up the tree for a context; more would read whole lists and pages. */
const maxContextDepth = 3
/** Look-alikes described by their attributes; a page with more of one control is not told apart further. */
const maxDescribed = 40
const evaluateMs = 3000

/**
 * How long a replay waits for a recorded element to appear, and for a
 * replayed step's expectation to hold, before it calls the step changed (and
 * heals it, at a model's cost). Generous: on a busy machine a page can take
 * seconds to render what the last step set off, and a wrong "changed" costs a
 * model call; a page that really changed costs only this wait.
 */
export const replayWaitMs = 8000

export async function describeTarget(
  page: Page,
  registry: RefRegistry,
  ref: string,
  signal: AbortSignal,
): Promise<ElementTarget | undefined> {
  if (registry.page !== page || !registry.get(ref)) return undefined
  // The last view's capture usually says enough; the whole page is scanned only when look-alikes may be
  // off screen or need a context that only a whole-page capture reads as a replay does.
  let capture = registry.latestCapture
  const first = registry.get(ref)
  const seen = capture && findNode(capture.tree, ref)
  if (!capture || !first || !seen) {
    await capturePage(page, registry, { wholePage: true }, signal)
    capture = registry.latestCapture
  } else if (!capture.wholePage && needsWholePage(registry, capture, first, seen)) {
    // On the view's own snapshot: the element and its look-alikes are described as the model saw them.
    await capturePage(page, registry, { wholePage: true, snapshotOf: capture }, signal)
    capture = registry.latestCapture
  }
  const entry = registry.get(ref)
  const node = capture && findNode(capture.tree, ref)
  if (!capture || !entry || !node) return undefined
  const own = await describeEntry(page, entry, signal)
  if (!own) return undefined
  const target: ElementTarget = {
    role: entry.role,
    name: clean(entry.name),
    tag: own.tag,
    ...(Object.keys(own.attributes).length > 0 ? { attributes: own.attributes } : {}),
    ...(own.frame.length > 0 ? { frame: own.frame } : {}),
  }
  const others = lookAlikes(registry, entry).filter((other) => other.ref !== entry.ref)
  if (others.length === 0) return target
  const tree = capture.tree
  const chain = contextOf(node, maxContextDepth)
  const chains = others
    .map((other) => findNode(tree, other.ref))
    .filter((other) => other !== undefined)
    .map((other) => contextOf(other, maxContextDepth))
  // The fewest containers that tell this element from every look-alike (all of them when none do).
  let depth = 1
  while (depth < chain.length && chains.some((other) => sameLabels(other, chain, depth))) depth++
  const context = chain
    .slice(0, depth)
    .map(({ label, container }, i) => ({ role: containerRole(container, chain[i + 1]?.container), label }))
  return context.length > 0 ? { ...target, context } : target
}

/**
 * Whether the viewport's capture may describe the element otherwise than a
 * whole-page capture. It holds the whole page's snapshot, where every element
 * of an interactive role has a ref: the registry lists all its look-alikes, so
 * one unique there is unique on the page. Look-alikes are told apart by their
 * containers' labels, read as a whole-page capture reads them only when the
 * scan left nothing out (`complete`: scanned elements change a label's text).
 * Other roles (a clickable span, an image, a listbox the scan tagged) may have
 * look-alikes only a whole-page scan finds; so may a name read from content.
 */
function needsWholePage(
  registry: RefRegistry,
  capture: LatestCapture,
  entry: RefEntry,
  node: ViewNode,
): boolean {
  if (!interactiveRoles.has(entry.role) || entry.role === 'listbox') return true
  if (capture.complete) return false
  return !node.name || lookAlikes(registry, entry).length > 1
}

/** Finds a durable target on the page: role and name (scoped by its context), then tag and attributes. */
export async function findTarget(
  page: Page,
  registry: RefRegistry,
  target: ElementTarget,
  signal: AbortSignal,
): Promise<TargetMatch> {
  const { tree } = await capturePage(page, registry, { wholePage: true }, signal)
  const what = describe(target)
  const context = target.context ?? []
  const byName = registry
    .all()
    .filter((entry) => entry.role === target.role && clean(entry.name) === target.name)
  if (byName.length === 1 && context.length === 0) return { ok: true, ref: byName[0]?.ref ?? '' }
  if (byName.length > 0) {
    // The same reading of context as the refs' own: the labels of the containers around each look-alike.
    const inContext = byName.filter((entry) => {
      const node = findNode(tree, entry.ref)
      return node !== undefined && sameLabels(contextOf(node, context.length), context, context.length)
    })
    if (inContext.length === 1) return { ok: true, ref: inContext[0]?.ref ?? '' }
    if (inContext.length > 1) {
      const described = await describeAll(page, inContext, signal)
      const byAttributes = described.filter(({ description }) => sameAttributes(description, target))
      if (byAttributes.length === 1) return { ok: true, ref: byAttributes[0]?.entry.ref ?? '' }
      return { ok: false, missing: false, reason: `${inContext.length} elements match ${what}.` }
    }
  }
  // The name changed, or the context did: a stable attribute may still point at it.
  if (target.attributes && Object.keys(target.attributes).length > 0) {
    const sameRole = registry.all().filter((entry) => entry.role === target.role)
    const described = await describeAll(page, sameRole, signal)
    const byAttributes = described.filter(({ description }) => sameAttributes(description, target))
    if (byAttributes.length === 1) return { ok: true, ref: byAttributes[0]?.entry.ref ?? '' }
    if (byAttributes.length > 1)
      return { ok: false, missing: false, reason: `${byAttributes.length} elements match ${what}.` }
  }
  return { ok: false, missing: true, reason: `No ${what} is on the page.` }
}

/**
 * Checks one expectation on the page, waiting briefly for a page that
 * updates after the action: undefined when it holds, else what is wrong.
 */
export async function checkExpectation(
  page: Page,
  registry: RefRegistry,
  expectation: Expectation,
  target: ElementTarget | undefined,
  signal: AbortSignal,
  waitMs = replayWaitMs,
): Promise<string | undefined> {
  const deadline = performance.now() + waitMs
  for (;;) {
    const problem = await checkOnce(page, registry, expectation, target, signal)
    if (problem === undefined || performance.now() >= deadline) return problem
    await sleep(150, signal)
  }
}

async function checkOnce(
  page: Page,
  registry: RefRegistry,
  expectation: Expectation,
  target: ElementTarget | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  switch (expectation.kind) {
    case 'url': {
      const now = page.url()
      return now === expectation.url ? undefined : `expected the page at ${expectation.url}, it is at ${now}`
    }
    case 'appeared': {
      const shown = await textShown(page, expectation.text, signal)
      return shown ? undefined : `expected "${expectation.text}" on the page; it is not there`
    }
    case 'gone': {
      if (!target) return undefined
      const match = await findTarget(page, registry, target, signal)
      return match.ok || !match.missing
        ? `expected ${describe(target)} to be gone; it is still there`
        : undefined
    }
    case 'value': {
      if (!target) return undefined
      const match = await findTarget(page, registry, target, signal)
      if (!match.ok) return `expected ${describe(target)} to hold "${expectation.value}": ${match.reason}`
      const entry = registry.get(match.ref)
      if (!entry) return `expected ${describe(target)} to hold "${expectation.value}"; it is gone`
      const value = await evaluateFirst(locatorFor(page, entry.target), fieldValue, undefined, signal)
      return value === expectation.value
        ? undefined
        : `expected ${describe(target)} to hold "${expectation.value}", it holds "${value}"`
    }
    default: {
      const unknown: never = expectation
      throw new Error(`Unknown expectation ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * What a call left on the page: where the page is, whether its element is
 * gone, whether typed text shows. Cheap when nothing changed: the element's
 * old handle is tried before the page is captured again.
 */
export async function callOutcome(
  page: Page,
  registry: RefRegistry,
  probe: { ref?: string; target?: ElementTarget; typed?: string },
  signal: AbortSignal,
): Promise<CallOutcome> {
  const outcome: CallOutcome = { url: page.url() }
  if (probe.target && probe.ref) {
    const entry = registry.page === page ? registry.get(probe.ref) : undefined
    const stillThere = entry ? await isShown(locatorFor(page, entry.target), signal) : false
    if (!stillThere) {
      const match = await findTarget(page, registry, probe.target, signal)
      if (!match.ok && match.missing) outcome.targetGone = true
    }
  }
  if (probe.typed) outcome.textShown = await textShown(page, probe.typed, signal)
  return outcome
}

/** `button 'Delete' in listitem 'Buy milk'`: how failures name a target. */
export function describe(target: ElementTarget): string {
  const name = target.name ? ` '${target.name}'` : ''
  const context = (target.context ?? []).map((item) => ` in ${item.role} '${item.label}'`).join('')
  return `${target.role}${name}${context}`
}

function lookAlikes(registry: RefRegistry, entry: RefEntry): RefEntry[] {
  const name = clean(entry.name)
  return registry.all().filter((other) => other.role === entry.role && clean(other.name) === name)
}

async function describeAll(
  page: Page,
  entries: RefEntry[],
  signal: AbortSignal,
): Promise<{ entry: RefEntry; description: InPageDescription }[]> {
  const described = await Promise.all(
    entries.slice(0, maxDescribed).map(async (entry) => {
      const description = await describeEntry(page, entry, signal)
      return description ? { entry, description } : undefined
    }),
  )
  return described.filter((item) => item !== undefined)
}

async function describeEntry(
  page: Page,
  entry: RefEntry,
  signal: AbortSignal,
): Promise<InPageDescription | undefined> {
  try {
    return await evaluateFirst(locatorFor(page, entry.target), describeElement, undefined, signal)
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    // An element that went away between the capture and the look is no candidate.
    return undefined
  }
}

/** Whether the page's text shows `text`: one evaluation in the page (a locator of its body would take five round trips). */
async function textShown(page: Page, text: string, signal: AbortSignal): Promise<boolean> {
  try {
    return await withDeadline(page.mainFrame().evaluate(textOnPage, text), evaluateMs, signal, 'text lookup')
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    // A document going away under the look (a navigation) shows nothing yet; a replay's check looks again.
    return false
  }
}

/** Attached and visible: a button hidden once its work is done is gone, as the page view sees it. */
async function isShown(locator: Locator, signal: AbortSignal): Promise<boolean> {
  try {
    return await withDeadline(locator.first().isVisible(), evaluateMs, signal, 'element lookup')
  } catch (error) {
    if (isAbortError(error)) throw error
    return false
  }
}

/**
 * The role a context is named by: its container's, or, for a generic wrapper,
 * the nearest real container around it below the next context (a list item
 * around the row's div), which a test can find by role.
 */
function containerRole(container: ViewNode, next: ViewNode | undefined): string {
  let node: ViewNode | undefined = container
  for (let hops = 0; node && node !== next && hops < 3; hops++, node = node.parent)
    if (!['generic', 'none', 'presentation'].includes(node.role)) return node.role
  return container.role
}

/** The node of the capture's tree that holds a ref. */
function sameLabels(chain: { label: string }[], wanted: { label: string }[], depth: number): boolean {
  for (let i = 0; i < depth; i++) if (clean(chain[i]?.label) !== clean(wanted[i]?.label)) return false
  return true
}

function sameAttributes(description: InPageDescription, target: ElementTarget): boolean {
  const wanted = target.attributes ?? {}
  const strong = (['id', 'data-testid', 'name'] as const).filter((key) => wanted[key] !== undefined)
  if (strong.length > 0) return strong.every((key) => description.attributes[key] === wanted[key])
  if (wanted.href !== undefined)
    return description.tag === target.tag && description.attributes.href === wanted.href
  if (wanted.label !== undefined) return description.attributes.label === wanted.label
  return false
}

function clean(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim()
}
