import type { Page } from 'playwright-core'
import type { BoxOffset, PointTarget } from '../../recording/schema.ts'
import { describeTarget } from './durable-targets.ts'
import { locatorFor, type RefRegistry } from './stable-refs.ts'
import type { ViewNode } from './view-tree.ts'

/**
 * Coordinate actions recorded and replayed through elements: the element of
 * the latest view under a point, with the point's place in its box, and back
 * from an element and a place in its box to a point on the screen.
 */

/** A point in screenshot pixels, or in the viewport's CSS pixels. */
export interface ScreenPoint {
  x: number
  y: number
}
type Point = ScreenPoint

/** Elements whose box holds the point that are tried, innermost first; the rest are the page around them. */
const maxCandidates = 6
/**
 * A candidate covered at the point fails Playwright's hit test only when this runs out, and a loaded
 * machine can take several hundred ms over one that is not covered (CI once recorded a bare point so):
 * the candidates are tried at once, so covered ones cost this once per point, not once per candidate.
 */
const hitTestMs = 2_000

/**
 * The element under a screenshot point (`scale` screenshot pixels per CSS
 * pixel), described durably, and where in its box the point is; undefined
 * when no element of the view is there (a bare canvas area).
 */
export async function describePoint(
  page: Page,
  registry: RefRegistry,
  scale: number,
  point: Point,
  signal: AbortSignal,
): Promise<PointTarget | undefined> {
  const hit = await refAtPoint(page, registry, { x: point.x / scale, y: point.y / scale }, signal)
  if (!hit) return undefined
  const target = await describeTarget(page, registry, hit.ref, signal)
  return target ? { target, offset: hit.offset } : undefined
}

/**
 * The innermost element of the latest view that receives the pointer at a
 * viewport point. Playwright's own hit test decides (a trial hover at that
 * point, run in its isolated world), not a page script that could lie about
 * what is on top.
 */
async function refAtPoint(
  page: Page,
  registry: RefRegistry,
  point: Point,
  signal: AbortSignal,
): Promise<{ ref: string; offset: BoxOffset } | undefined> {
  const capture = registry.latestCapture
  if (registry.page !== page || !capture) return undefined
  const candidates = [...capture.tree.frames.values()]
    .flat()
    .filter((node): node is ViewNode & { ref: string } => node.ref !== undefined && holds(node, point))
    .sort((a, b) => area(a) - area(b))
    .slice(0, maxCandidates)
  // All start at once; the innermost that answers wins as soon as every one inside it has failed, and the
  // trial hovers still running for the elements around it are stopped.
  const done = new AbortController()
  const trying = AbortSignal.any([signal, done.signal])
  const hits = candidates.map((node) => hitAt(page, registry, node.ref, point, signal, trying))
  for (const hit of hits) hit.catch(() => {})
  try {
    for (const [index, hit] of hits.entries()) {
      const offset = await hit
      const node = candidates[index]
      if (offset && node) return { ref: node.ref, offset }
    }
    return undefined
  } finally {
    done.abort()
  }
}

/** Where in the element behind `ref` the point is, when the pointer there reaches it (undefined: covered or gone). */
async function hitAt(
  page: Page,
  registry: RefRegistry,
  ref: string,
  point: Point,
  signal: AbortSignal,
  trying: AbortSignal,
): Promise<BoxOffset | undefined> {
  const entry = registry.get(ref)
  if (!entry) return undefined
  const locator = locatorFor(page, entry.target)
  try {
    const box = await locator.boundingBox({ timeout: hitTestMs })
    if (!box || box.width <= 0 || box.height <= 0) return undefined
    const position = { x: point.x - box.x, y: point.y - box.y }
    if (position.x < 0 || position.y < 0 || position.x > box.width || position.y > box.height)
      return undefined
    await locator.hover({ trial: true, position, timeout: hitTestMs, signal: trying })
    return { x: position.x / box.width, y: position.y / box.height }
  } catch (error) {
    if (signal.aborted) throw error
    // Covered at the point, gone, or stopped because an element inside it answered first.
    return undefined
  }
}

/**
 * The screenshot point at `offset` inside the element behind `ref`, scrolled
 * into view first (the page may have moved it), or why there is none.
 */
export async function pointIn(
  page: Page,
  registry: RefRegistry,
  scale: number,
  ref: string,
  offset: BoxOffset,
): Promise<Point | string> {
  const entry = registry.page === page ? registry.get(ref) : undefined
  if (!entry) return `element ${ref} is no longer on the page`
  const locator = locatorFor(page, entry.target)
  await locator.scrollIntoViewIfNeeded({ timeout: hitTestMs }).catch(() => {})
  const box = await locator.boundingBox({ timeout: hitTestMs }).catch(() => null)
  if (!box || box.width <= 0 || box.height <= 0) return `${entry.role} '${entry.name}' is not visible`
  return { x: (box.x + box.width * offset.x) * scale, y: (box.y + box.height * offset.y) * scale }
}

function holds(node: ViewNode, point: Point): boolean {
  const box = node.box
  return (
    box !== undefined &&
    point.x >= box.x &&
    point.y >= box.y &&
    point.x <= box.x + box.width &&
    point.y <= box.y + box.height
  )
}

function area(node: ViewNode): number {
  return (node.box?.width ?? 0) * (node.box?.height ?? 0)
}
