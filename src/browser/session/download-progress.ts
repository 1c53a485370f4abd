import type { CDPSession, Page } from 'playwright-core'

/**
 * Tells `onOver` of a download of `page` the moment it has received more than
 * `maxBytes`, while it is still arriving (Chromium's `Page.downloadProgress`,
 * on a CDP session of the page's own): Playwright tells of a download's
 * bytes only once it is whole, and a chunked one says no size beforehand, so
 * an endless one would otherwise fill the disk before it could be judged.
 * Without a CDP session (a page that closed first), nothing is told and the
 * size is judged once the file is whole. Returns the unwatch.
 */
export function watchDownloadProgress(
  page: Page,
  maxBytes: number,
  onOver: (url: string, receivedBytes: number, totalBytes: number) => void,
): () => void {
  let session: CDPSession | undefined
  let stopped = false
  const urls = new Map<string, string>()
  void page
    .context()
    .newCDPSession(page)
    .then(async (cdp) => {
      session = cdp
      if (stopped) return void cdp.detach().catch(() => {})
      cdp.on('Page.downloadWillBegin', (event) => urls.set(event.guid, event.url))
      cdp.on('Page.downloadProgress', (event) => {
        const url = urls.get(event.guid)
        if (event.state !== 'inProgress') urls.delete(event.guid)
        else if (url !== undefined && event.receivedBytes > maxBytes) {
          urls.delete(event.guid)
          onOver(url, event.receivedBytes, event.totalBytes)
        }
      })
      await cdp.send('Page.enable')
    })
    .catch(() => {
      // The page closed first, or its browser gives no CDP session: the size is judged once whole.
    })
  return () => {
    stopped = true
    void session?.detach().catch(() => {})
  }
}
