import type { Frame, Locator, Page } from 'playwright-core'
import { AbortError, abortable } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { locatorFor, type RefRegistry } from '../view/stable-refs.ts'

/**
 * A JPEG of what the run's page shows in its viewport, taken with the step's
 * observation. Secrets never reach the picture: password fields, and every
 * element carrying `data-sextant-secret` (set by the `type` action on a field
 * that received a secret), are covered by a blank box first. The covers live
 * in a temporary overlay that is removed on every path, so the page is left as
 * it was.
 */

/**
 * The attribute that marks an element whose content is a secret: screenshots
 * blank it. The `type` action sets it on a field it filled with a secret's
 * value; a page or a tool may set it on anything else that must not be seen.
 */
export const secretAttribute = 'data-sextant-secret'
/** What every screenshot blanks. */
export const maskedSelector = `input[type=password], [${secretAttribute}]`

export interface ScreenshotOptions {
  /** JPEG quality, 1–100 (default 70). */
  quality?: number
  /** Wider viewports are scaled down to this width, in pixels (default 1280). */
  maxWidth?: number
  /** Mark each on-screen element of the latest page view with its ref, so a model can tie what it sees to what it can act on. */
  labels?: boolean
}

/** An element's ref and where it is on screen, drawn on the picture when labels are asked for. */
export interface RefLabel {
  ref: string
  box: ViewportBox
}

/** The labels' colour: loud and rare in real pages, so a label is never taken for the page's own ink. */
export const labelColor = '#e600e6'

export interface Screenshot {
  /** The JPEG's bytes. */
  data: Uint8Array
  mediaType: 'image/jpeg'
  width: number
  height: number
}

export const defaultScreenshotQuality = 70
export const defaultScreenshotMaxWidth = 1280

/** Marks the overlay's nodes, so they can all be found and removed again. */
const overlayAttribute = 'data-sextant-overlay'
/** Bound on putting up or taking down the covers of one frame. */
const overlayDeadlineMs = 2000

export async function captureScreenshot(
  page: Page,
  options: Omit<ScreenshotOptions, 'labels'>,
  signal: AbortSignal,
  labels: readonly RefLabel[] = [],
): Promise<Screenshot> {
  const quality = Math.min(100, Math.max(1, Math.round(options.quality ?? defaultScreenshotQuality)))
  const maxWidth = Math.max(16, Math.round(options.maxWidth ?? defaultScreenshotMaxWidth))
  const frames = page.frames()
  try {
    // A frame whose covers cannot go up is not photographed at all: better no picture than a secret in one.
    await Promise.all(frames.map((frame) => coverSecrets(frame, signal)))
    if (labels.length > 0) {
      await withDeadline(
        page.mainFrame().evaluate(drawLabels, { labels, attribute: overlayAttribute, color: labelColor }),
        overlayDeadlineMs,
        signal,
        'screenshot labels',
      )
    }
    const cdp = await page.context().newCDPSession(page)
    try {
      const { cssVisualViewport: viewport } = await abortable(cdp.send('Page.getLayoutMetrics'), signal)
      const scale = Math.min(1, maxWidth / viewport.clientWidth)
      const shot = await abortable(
        cdp.send('Page.captureScreenshot', {
          format: 'jpeg',
          quality,
          // Page coordinates: the clip follows the scroll position, so this is the viewport as shown.
          clip: {
            x: viewport.pageX,
            y: viewport.pageY,
            width: viewport.clientWidth,
            height: viewport.clientHeight,
            scale,
          },
        }),
        signal,
      )
      return {
        data: Buffer.from(shot.data, 'base64'),
        mediaType: 'image/jpeg',
        width: Math.round(viewport.clientWidth * scale),
        height: Math.round(viewport.clientHeight * scale),
      }
    } finally {
      void cdp.detach().catch(() => {})
    }
  } finally {
    // Never leave the overlay on the page, even after an abort: the next observation would see it.
    await Promise.all(frames.map((frame) => removeOverlay(frame)))
  }
}

async function coverSecrets(frame: Frame, signal: AbortSignal): Promise<void> {
  if (frame.isDetached()) return
  if (signal.aborted) throw new AbortError()
  await withDeadline(
    frame.evaluate(drawCovers, { selector: maskedSelector, attribute: overlayAttribute }),
    overlayDeadlineMs,
    signal,
    'screenshot masking',
  )
}

async function removeOverlay(frame: Frame): Promise<void> {
  if (frame.isDetached()) return
  try {
    await withDeadline(
      frame.evaluate((attribute) => {
        for (const node of document.querySelectorAll(`[${attribute}]`)) node.remove()
      }, overlayAttribute),
      overlayDeadlineMs,
      new AbortController().signal,
      'screenshot overlay removal',
    )
  } catch {
    // A frame that navigated away took its overlay with it.
  }
}

/** Runs in the page: a blank box over each masked element in view, open shadow roots included. */
function drawCovers({ selector, attribute }: { selector: string; attribute: string }): void {
  const found: Element[] = []
  const visit = (root: Document | ShadowRoot) => {
    found.push(...root.querySelectorAll(selector))
    for (const element of root.querySelectorAll('*')) if (element.shadowRoot) visit(element.shadowRoot)
  }
  visit(document)
  const layer = document.createElement('div')
  layer.setAttribute(attribute, '')
  layer.setAttribute('aria-hidden', 'true')
  const fixed = 'position:fixed;pointer-events:none;z-index:2147483647;margin:0;padding:0;border:0;'
  layer.style.cssText = `${fixed}inset:0;`
  for (const element of found) {
    const box = element.getBoundingClientRect()
    if (box.width === 0 || box.height === 0) continue
    if (box.bottom < 0 || box.right < 0 || box.top > innerHeight || box.left > innerWidth) continue
    const cover = document.createElement('div')
    cover.style.cssText = `${fixed}left:${box.left}px;top:${box.top}px;width:${box.width}px;height:${box.height}px;background:#9aa0a6;`
    layer.append(cover)
  }
  if (layer.childElementCount > 0) document.documentElement.append(layer)
}

/** Runs in the page: an outline and a ref tag per element, in the main frame's viewport (where the boxes are measured). */
function drawLabels({
  labels,
  attribute,
  color,
}: {
  labels: readonly { ref: string; box: { x: number; y: number; width: number; height: number } }[]
  attribute: string
  color: string
}): void {
  const layer = document.createElement('div')
  layer.setAttribute(attribute, '')
  layer.setAttribute('aria-hidden', 'true')
  const fixed = 'position:fixed;pointer-events:none;z-index:2147483647;margin:0;box-sizing:border-box;'
  layer.style.cssText = `${fixed}inset:0;`
  for (const { ref, box } of labels) {
    const left = box.x * innerWidth
    const top = box.y * innerHeight
    const outline = document.createElement('div')
    outline.style.cssText = `${fixed}left:${left}px;top:${top}px;width:${box.width * innerWidth}px;height:${box.height * innerHeight}px;border:2px solid ${color};`
    const tag = document.createElement('div')
    tag.textContent = ref
    tag.style.cssText = `${fixed}left:${left}px;top:${Math.max(0, top - 14)}px;padding:0 3px;font:bold 11px/14px monospace;color:#fff;background:${color};`
    layer.append(outline, tag)
  }
  document.documentElement.append(layer)
}

/** Where an element is on the screenshot, as fractions of the viewport (0–1), so any scaled copy can be marked. */
export interface ViewportBox {
  x: number
  y: number
  width: number
  height: number
}

/** The viewport box of an element, or undefined when it is not on screen (or not found within a moment). */
export async function viewportBox(page: Page, locator: Locator): Promise<ViewportBox | undefined> {
  const viewport = page.viewportSize()
  const box = await locator.boundingBox({ timeout: 500 }).catch(() => null)
  if (!viewport || !box || box.width === 0 || box.height === 0) return undefined
  if (
    box.x + box.width <= 0 ||
    box.y + box.height <= 0 ||
    box.x >= viewport.width ||
    box.y >= viewport.height
  )
    return undefined
  const round = (value: number) => Math.round(value * 10_000) / 10_000
  return {
    x: round(box.x / viewport.width),
    y: round(box.y / viewport.height),
    width: round(box.width / viewport.width),
    height: round(box.height / viewport.height),
  }
}

/** The on-screen elements of the latest page view, with their boxes; bounded so a huge page stays quick. */
export async function refLabels(page: Page, registry: RefRegistry, viewRefs: string[]): Promise<RefLabel[]> {
  if (registry.page !== page) return []
  const labels = await Promise.all(
    viewRefs.slice(0, 200).map(async (ref) => {
      const entry = registry.get(ref)
      const box = entry ? await viewportBox(page, locatorFor(page, entry.target)) : undefined
      return box ? { ref, box } : undefined
    }),
  )
  return labels.filter((label) => label !== undefined)
}
