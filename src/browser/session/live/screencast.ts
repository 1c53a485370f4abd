import jpeg, { type RawImageData } from 'jpeg-js'
import type { CDPSession, Frame, Page } from 'playwright-core'
import { isAbortError, sleep } from '../../../tool.ts'
import { captureViewport } from '../pictures/screenshot.ts'
import type { SecretFields } from '../pictures/secret-masks.ts'
import type { MaskBox } from '../pictures/secret-search.ts'
import type { TabTracker } from '../tabs.ts'

/**
 * Live frames of a run's active tab, from Chromium's screencast
 * (`Page.startScreencast` through a CDP session of the page). Chromium sends
 * a frame only when the page has changed, and the next one only once the
 * last is acknowledged, which this module does after the frame is handed on:
 * a slow consumer slows the stream instead of piling frames up. When another
 * tab becomes active the cast moves to it.
 *
 * Masking fails closed: while `masked()` holds, every frame has the boxes
 * `SecretFields` finds (measured by the browser, not by page scripts) painted
 * over in its decoded pixels before it leaves; a frame whose boxes cannot be
 * told is dropped. Screenshots mask with an in-page overlay instead, which a
 * page script could take down while a stream runs.
 */

export interface LiveFrame {
  /** The JPEG, base64-encoded (as Chromium sends it and as the live stream carries it). */
  jpeg: string
  /** The viewport the frame shows, in CSS pixels: a point on the frame maps to the page by these. */
  width: number
  height: number
  /**
   * The origin of the tab's page when the frame left, as the browser reports
   * its URL (never as the page's scripts say): `https://example.com`, or the
   * scheme of a page without one (`about:blank`, `data:`). A person using the
   * page reads where they are from this.
   */
  origin: string
}

export interface ScreencastOptions {
  /** Asked for each frame: true while secret fields must be painted over (always, unless a person has taken over). */
  masked: () => boolean
  /** JPEG quality, 1–100 (default 70). */
  quality?: number
  /** Frames are scaled down to fit this width in pixels (default 1280). */
  maxWidth?: number
}

interface ScreencastFrameEvent {
  data: string
  sessionId: number
  metadata: { deviceWidth?: number; deviceHeight?: number }
}

const defaultQuality = 70
const defaultMaxWidth = 1280
/** Pixels added around each mask: JPEG blocks and sub-pixel layout bleed a little past a field's box. */
const maskMarginPx = 3
const maskColor = { r: 0x9a, g: 0xa0, b: 0xa6 }

/** Streams frames of the active tab of `tabs` to `onFrame` until `signal` aborts. */
export async function screencast(
  tabs: TabTracker,
  fields: SecretFields,
  onFrame: (frame: LiveFrame) => void,
  options: ScreencastOptions,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    const switched = new AbortController()
    const stopWatching = tabs.onActiveChange(() => switched.abort())
    const page = tabs.current?.page
    // A navigation that swaps the page's renderer (a new tab leaving about:blank) can end Chromium's cast
    // of it without a word: the cast is started afresh after each one.
    const onNavigated = (frame: Frame) => {
      if (frame === page?.mainFrame()) switched.abort()
    }
    page?.on('framenavigated', onNavigated)
    try {
      const cast = AbortSignal.any([signal, switched.signal])
      if (page) await castPage(page, fields, onFrame, options, cast)
      else await aborted(cast)
    } finally {
      stopWatching()
      page?.off('framenavigated', onNavigated)
    }
  }
}

async function castPage(
  page: Page,
  fields: SecretFields,
  onFrame: (frame: LiveFrame) => void,
  options: ScreencastOptions,
  signal: AbortSignal,
): Promise<void> {
  let cdp: CDPSession
  try {
    cdp = await page.context().newCDPSession(page)
  } catch {
    // The page closed meanwhile: its tab's removal switches the cast to the next active tab.
    return aborted(signal)
  }
  const masker = new FrameMasker(page, fields, options, signal)
  const ack = (event: ScreencastFrameEvent) => {
    if (event.sessionId !== firstFrameId)
      void cdp.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {})
  }
  let cast = false
  // Frames are masked one at a time, in order. Each is acknowledged as its masking starts, so Chromium
  // captures the next meanwhile and holds the one after until this one is done: at most one waits.
  let pending: ScreencastFrameEvent | undefined
  let busy = false
  const pump = async () => {
    busy = true
    try {
      for (let event = pending; event && !signal.aborted; event = pending) {
        pending = undefined
        ack(event)
        const frame = await masker.frame(event).catch(() => undefined)
        // A navigation restarts the cast (aborting this signal), so a frame that goes out shows this URL's page.
        if (frame && !signal.aborted) onFrame({ ...frame, origin: shownOrigin(page.url()) })
      }
    } finally {
      busy = false
    }
  }
  const onScreencastFrame = (event: ScreencastFrameEvent) => {
    if (event.sessionId !== firstFrameId) cast = true
    // A frame overtaken before its turn is dropped, but acknowledged, so Chromium never waits for it.
    if (pending) ack(pending)
    pending = event
    if (!busy) void pump()
  }
  cdp.on('Page.screencastFrame', onScreencastFrame)
  try {
    const maxWidth = Math.max(16, Math.round(options.maxWidth ?? defaultMaxWidth))
    const quality = Math.min(100, Math.max(1, Math.round(options.quality ?? defaultQuality)))
    const start = () =>
      cdp
        .send('Page.startScreencast', { format: 'jpeg', quality, maxWidth, maxHeight: maxWidth })
        .catch(() => {})
    await start()
    // Chromium casts a frame only when the page draws one: a tab that is already still (one just switched
    // to) would show nothing, and a viewer would keep the last tab's picture, until it changes. Taken
    // whole (the set viewport's size), not clipped: a clip emulates a viewport for the capture, and one
    // made as the cast started left a fresh browser's cast without frames (live-restart test, 1 run in 3).
    void firstFrame(cdp, { maxWidth, quality, frame: page.viewportSize() }, signal).then((event) => {
      if (event && !cast && !signal.aborted) onScreencastFrame(event)
    })
    // A cast started on a browser that has just come up (a run's fresh browser after a crash) can stay
    // silent for good while its page changes all along (live-restart test, 1 run in 3): until Chromium
    // has sent a frame, the cast is started again. On a still page this costs a few restarts, no picture.
    for (let restart = 0; restart < maxCastRestarts && !cast; restart++) {
      await sleep(castWatchdogMs, signal).catch(() => {})
      if (cast || signal.aborted) break
      await cdp.send('Page.stopScreencast').catch(() => {})
      await start()
    }
    await aborted(signal)
  } finally {
    cdp.off('Page.screencastFrame', onScreencastFrame)
    await cdp.send('Page.stopScreencast').catch(() => {})
    await cdp.detach().catch(() => {})
  }
}

/** How long a cast may stay silent after it started before it is started again, and how many times. */
const castWatchdogMs = 1000
const maxCastRestarts = 3

/** The session id a frame taken as a picture carries: it is not Chromium's, so it is never acknowledged. */
const firstFrameId = -1

/** The page as it is now, as a cast frame would show it (masked like one); undefined when it cannot be taken. */
async function firstFrame(
  cdp: CDPSession,
  options: { quality: number; maxWidth: number; frame: { width: number; height: number } | null },
  signal: AbortSignal,
): Promise<ScreencastFrameEvent | undefined> {
  try {
    const shot = await captureViewport(cdp, options, signal)
    const metadata = { deviceWidth: shot.viewportWidth, deviceHeight: shot.viewportHeight }
    return { data: shot.data, sessionId: firstFrameId, metadata }
  } catch {
    // A page closing or navigating, or the cast stopped: the cast's own frames follow.
    return undefined
  }
}

/**
 * Paints over a frame's secret boxes. The boxes are measured after the frame
 * was drawn, so a field that moved in between (a scroll, a re-layout) would be
 * measured where it is now, not where the frame shows it. Each frame is
 * therefore painted with the boxes measured for it and for the frame before:
 * a field that moved once between two frames is covered at both places. What
 * remains is a field that moved more than once within one frame's interval
 * and was drawn at a middle position; the margin around each box narrows that
 * to small, fast movements.
 */
class FrameMasker {
  readonly #page: Page
  readonly #fields: SecretFields
  readonly #options: ScreencastOptions
  readonly #signal: AbortSignal
  #previous: MaskBox[] = []

  constructor(page: Page, fields: SecretFields, options: ScreencastOptions, signal: AbortSignal) {
    this.#page = page
    this.#fields = fields
    this.#options = options
    this.#signal = signal
  }

  /** The frame to send, or undefined when it must be dropped (its boxes could not be told). */
  async frame(event: ScreencastFrameEvent): Promise<Omit<LiveFrame, 'origin'> | undefined> {
    const width = event.metadata.deviceWidth ?? 0
    const height = event.metadata.deviceHeight ?? 0
    if (width <= 0 || height <= 0) return undefined
    if (!this.#options.masked()) {
      this.#previous = []
      return { jpeg: event.data, width, height }
    }
    const measuring = this.#fields.boxes(this.#page, undefined, this.#signal)
    // Decoded while the browser measures, when the last frame had something to mask (this one likely has too).
    const image = this.#previous.length > 0 ? decodeOrNothing(event.data) : undefined
    let boxes: MaskBox[]
    try {
      boxes = await measuring
    } catch (error) {
      if (!isAbortError(error)) this.#previous = []
      return undefined
    }
    const painted = [...this.#previous, ...boxes]
    this.#previous = boxes
    if (painted.length === 0) return { jpeg: event.data, width, height }
    const quality = Math.min(100, Math.max(1, Math.round(this.#options.quality ?? defaultQuality)))
    const pixels = image ?? jpeg.decode(Buffer.from(event.data, 'base64'), decodeOptions)
    return { jpeg: paintBoxes(pixels, painted, width, quality), width, height }
  }
}

const decodeOptions = { useTArray: true, formatAsRGBA: true } as const

function decodeOrNothing(base64: string): RawImage | undefined {
  try {
    return jpeg.decode(Buffer.from(base64, 'base64'), decodeOptions)
  } catch {
    // Decoded again below, where a frame that cannot be is dropped.
    return undefined
  }
}

type RawImage = RawImageData<Uint8Array>

/** Fills each box (CSS pixels of a `viewportWidth`-wide viewport) of a decoded frame; answers it as base64 JPEG. */
function paintBoxes(
  image: RawImage,
  boxes: readonly MaskBox[],
  viewportWidth: number,
  quality: number,
): string {
  const scale = image.width / viewportWidth
  for (const box of boxes) {
    const left = clamp(Math.floor((box.x - maskMarginPx) * scale), image.width)
    const top = clamp(Math.floor((box.y - maskMarginPx) * scale), image.height)
    const right = clamp(Math.ceil((box.x + box.width + maskMarginPx) * scale), image.width)
    const bottom = clamp(Math.ceil((box.y + box.height + maskMarginPx) * scale), image.height)
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) {
        const at = (y * image.width + x) * 4
        image.data[at] = maskColor.r
        image.data[at + 1] = maskColor.g
        image.data[at + 2] = maskColor.b
        image.data[at + 3] = 255
      }
    }
  }
  return Buffer.from(jpeg.encode(image, quality).data).toString('base64')
}

function clamp(value: number, max: number): number {
  return Math.min(max, Math.max(0, value))
}

/** The origin of `url` for people: the scheme alone (or `about:blank`) when it has none. */
export function shownOrigin(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.origin !== 'null') return parsed.origin
    return parsed.protocol === 'about:' ? parsed.href : parsed.protocol
  } catch {
    return 'unknown'
  }
}

/** Settles when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
