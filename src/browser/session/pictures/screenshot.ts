import type { CDPSession, Locator, Page } from 'playwright-core'
import { abortable } from '../../../tool.ts'
import { locatorFor, type RefRegistry } from '../../view/stable-refs.ts'
import { findNode } from '../../view/view-tree.ts'
import { PageCdpSessions } from '../cdp-sessions.ts'
import { PictureOverlay } from './picture-overlay.ts'
import { SecretFields } from './secret-masks.ts'
import type { MaskBox, SecretMatcher } from './secret-search.ts'

/**
 * A JPEG of what the run's page shows in its viewport, taken with the step's
 * observation. Secrets never reach the picture: everything `SecretFields`
 * finds (fields a secret went into, password fields, whatever shows a
 * secret's value) is covered by a blank box first. The covers live in a
 * temporary overlay that is removed on every path, so the page is left as it
 * was; when they cannot be put up, or the page took them down before the
 * picture was taken, there is no picture (the step says why).
 */

export interface ScreenshotOptions {
  /** JPEG quality, 1–100 (default 70). */
  quality?: number
  /** Wider viewports are scaled down to this width, in pixels (default 1280). */
  maxWidth?: number
  /** Mark each on-screen element of the latest page view with its ref, so a model can tie what it sees to what it can act on. */
  labels?: boolean
  /** The run's secrets: whatever shows one of their values is blanked too. */
  secrets?: SecretMatcher | undefined
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

/** What a session's pictures bring to one: its kept fields and CDP sessions, the labels, when the page may be drawn on. */
export interface PictureParts {
  labels?: readonly RefLabel[]
  fields?: SecretFields
  cdpSessions?: PageCdpSessions
  /** Covers and labels go up only once this is over (a view being built must not read them); never rejects. */
  drawAfter?: Promise<unknown>
}

export async function captureScreenshot(
  page: Page,
  options: Omit<ScreenshotOptions, 'labels'>,
  signal: AbortSignal,
  parts: PictureParts = {},
): Promise<Screenshot & { scale: number }> {
  const { labels = [], fields = new SecretFields(), cdpSessions = new PageCdpSessions(false) } = parts
  const quality = Math.min(100, Math.max(1, Math.round(options.quality ?? defaultScreenshotQuality)))
  const maxWidth = Math.max(16, Math.round(options.maxWidth ?? defaultScreenshotMaxWidth))
  // Covers that cannot go up throw: better no picture than a secret in one.
  const masks = inView(await fields.boxes(page, options.secrets, signal), page.viewportSize())
  const draws = masks.length > 0 || labels.length > 0
  if (draws) await abortable(parts.drawAfter ?? Promise.resolve(), signal)
  return cdpSessions.use(page, async (cdp) => {
    // Nothing to draw (no secret shown, no labels), nothing to put up: the page is not touched.
    const overlay = draws
      ? await PictureOverlay.draw(cdp, { masks, labels, color: labelColor }, signal)
      : undefined
    try {
      const shot = await captureViewport(cdp, { quality, maxWidth, frame: page.viewportSize() }, signal)
      // A page that took a cover down (or moved it) while the picture was taken had it photographed bare.
      if (overlay && !(await overlay.standing(signal)))
        throw new Error('the page removed or moved the covers over its secret fields')
      return {
        data: Buffer.from(shot.data, 'base64'),
        mediaType: 'image/jpeg' as const,
        width: Math.round(shot.viewportWidth * shot.scale),
        height: Math.round(shot.viewportHeight * shot.scale),
        scale: shot.scale,
      }
    } finally {
      // Never leave the overlay on the page, even after an abort: the next observation would see it.
      await overlay?.remove()
    }
  })
}

/**
 * The masks a picture of the viewport can show. A field off screen (a login
 * form's password below the fold) needs no cover: drawing one would put an
 * overlay on the page, lay it out again and check it, for nothing the picture
 * holds. A field the page moves into view meanwhile is no less covered than
 * before: a cover stays where it was drawn. Without a known viewport, all.
 */
function inView(masks: MaskBox[], viewport: { width: number; height: number } | null): MaskBox[] {
  if (!viewport) return masks
  return masks.filter(
    (box) =>
      box.x < viewport.width && box.y < viewport.height && box.x + box.width > 0 && box.y + box.height > 0,
  )
}

/** A JPEG of the viewport as shown (base64), with the viewport's CSS size and the scale it was taken at. */
export interface ViewportCapture {
  data: string
  viewportWidth: number
  viewportHeight: number
  scale: number
}

/**
 * The viewport as shown, as a JPEG at most `maxWidth` wide, through a CDP
 * session of the page. `frame` is the page's viewport as set (Playwright's
 * `viewportSize()`), when known.
 */
export async function captureViewport(
  cdp: CDPSession,
  {
    quality,
    maxWidth,
    frame,
  }: { quality: number; maxWidth: number; frame?: { width: number; height: number } | null },
  signal: AbortSignal,
): Promise<ViewportCapture> {
  // The set viewport, not scaled down, is the surface as drawn: nothing to ask the renderer first. Its layout
  // metrics wait behind whatever its main thread is doing (the view's snapshot, in a step), which held the
  // capture 5–20 ms. The surface is the visual viewport unless pinch-zoomed, which a session's pages cannot be
  // (no touch); a scrollbar taking room is in the surface at its own place and moves no point of the page.
  if (frame && maxWidth >= frame.width) {
    const shot = await abortable(
      cdp.send('Page.captureScreenshot', { format: 'jpeg', quality, optimizeForSpeed: true }),
      signal,
    )
    return { data: shot.data, viewportWidth: frame.width, viewportHeight: frame.height, scale: 1 }
  }
  const viewport = (await abortable(cdp.send('Page.getLayoutMetrics'), signal)).cssVisualViewport
  const { clientWidth: width, clientHeight: height } = viewport
  const scale = Math.min(1, maxWidth / width)
  // A clip makes Chromium emulate a viewport of the clip's size for the capture and restore it after: two
  // layouts on the renderer, which the next action then waits behind. The whole surface at scale 1 is the
  // viewport as shown, when the visual viewport is the set viewport (no zoom, no scrollbar taking room).
  const whole =
    scale === 1 &&
    viewport.zoom === 1 &&
    viewport.offsetX === 0 &&
    viewport.offsetY === 0 &&
    frame?.width === width &&
    frame.height === height
  const shot = await abortable(
    cdp.send('Page.captureScreenshot', {
      format: 'jpeg',
      quality,
      optimizeForSpeed: true,
      // Page coordinates: the clip follows the scroll position, so this is the viewport as shown.
      ...(whole ? {} : { clip: { x: viewport.pageX, y: viewport.pageY, width, height, scale } }),
    }),
    signal,
  )
  return { data: shot.data, viewportWidth: width, viewportHeight: height, scale }
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
  const box = await locator.boundingBox({ timeout: 500 }).catch(() => null)
  return inViewport(box, page.viewportSize())
}

/**
 * Where the latest page view saw `ref`, as a viewport box: that capture was
 * taken with the step's picture, so it outlines the element where the
 * picture shows it, without asking the page. Undefined when the view did not
 * see it (a ref of an older view).
 */
export function capturedBox(page: Page, registry: RefRegistry, ref: string): ViewportBox | undefined {
  const capture = registry.page === page ? registry.latestCapture : undefined
  const box = capture && findNode(capture.tree, ref)?.box
  return box ? inViewport(box, page.viewportSize()) : undefined
}

/** A box in the viewport's CSS pixels as fractions of it; undefined when empty or off screen. */
function inViewport(
  box: { x: number; y: number; width: number; height: number } | null | undefined,
  viewport: { width: number; height: number } | null,
): ViewportBox | undefined {
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
      const box =
        capturedBox(page, registry, ref) ??
        (entry ? await viewportBox(page, locatorFor(page, entry.target)) : undefined)
      return box ? { ref, box } : undefined
    }),
  )
  return labels.filter((label) => label !== undefined)
}
