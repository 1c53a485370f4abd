import type { LiveFrame } from '../../../browser/browser-session.ts'
import type { ViewerCommon } from './common.ts'

/**
 * Browser code: the run's browser as it is now, in `#live-frame`, from
 * `GET /v1/runs/:id/live` while the run is live. Each frame becomes a blob:
 * URL (the page's CSP allows no data: images); the image carries the
 * viewport's CSS size in `data-viewport-width`/`-height`, so a point on it
 * maps to the page, and the frame's origin is written into every
 * `[data-live-origin]` element. The stream follows a replaced browser and ends when the
 * run lets its browser go; after a dropped connection, the run's next
 * observation starts it again. Served as source text (see assets.ts):
 * self-contained.
 */
export function liveView(common: ViewerCommon, base: string) {
  const { api, byId, readEventStream } = common
  const section = byId('live')
  const image = byId<HTMLImageElement>('live-frame')
  const address = byId('live-address')
  let watching: AbortController | undefined
  let ended = false
  let shownUrl = ''

  function show(frame: LiveFrame): void {
    const bytes = Uint8Array.from(atob(frame.jpeg), (char) => char.charCodeAt(0))
    const url = URL.createObjectURL(new Blob([bytes], { type: 'image/jpeg' }))
    image.src = url
    image.dataset.viewportWidth = String(frame.width)
    image.dataset.viewportHeight = String(frame.height)
    if (shownUrl) URL.revokeObjectURL(shownUrl)
    shownUrl = url
    showOrigin(frame.origin)
    section.hidden = false
  }

  /**
   * Where the shown tab is, as the browser reports it: in the live card and
   * wherever else the page marks a place for it (the takeover banner), so a
   * person sees a look-alike page for what it is, however it looks.
   */
  function showOrigin(origin: string): void {
    for (const slot of document.querySelectorAll('[data-live-origin]')) slot.textContent = origin
    address.hidden = false
  }

  /** Starts watching, unless it already does or the run has ended. */
  function start(): void {
    if (watching || ended) return
    const controller = new AbortController()
    watching = controller
    void (async () => {
      try {
        const response = await api(`${base}/live`, {
          headers: { accept: 'text/event-stream' },
          signal: controller.signal,
        })
        // 409: the run is no longer live here.
        if (!response.ok || !response.body) return
        await readEventStream(response.body, (data) => show(JSON.parse(data) as LiveFrame))
      } catch {
        // A dropped stream, or stop(): the section is hidden below.
      } finally {
        if (watching === controller) watching = undefined
        section.hidden = true
      }
    })()
  }

  /** The run has ended: no more live frames. */
  function stop(): void {
    ended = true
    watching?.abort()
    section.hidden = true
  }

  return { start, stop }
}

export type LiveView = ReturnType<typeof liveView>
