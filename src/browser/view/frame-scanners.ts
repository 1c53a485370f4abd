import type { ElementHandle, Frame, JSHandle } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { DeadlineError, withDeadline } from '../../util/deadline.ts'
import { createScanner, type Scanner } from './page-scan.ts'
import type { ScanOptions, ScanResult } from './scan-records.ts'

const scanTimeoutMs = 5000
const pinTimeoutMs = 3000

/**
 * The page scanner of each frame's current document, held by a handle (see
 * `createScanner`). A handle dies with its document: the next scan of the
 * frame then makes a new scanner, which also starts new identities, as a new
 * document must.
 */
export class FrameScanners {
  readonly #scanners = new WeakMap<Frame, Promise<JSHandle<Scanner>>>()

  async scan(frame: Frame, options: ScanOptions, signal: AbortSignal): Promise<ScanResult> {
    const kept = this.#scanners.get(frame)
    try {
      return await this.#scanOnce(frame, options, signal)
    } catch (error) {
      if (isAbortError(error) || signal.aborted || error instanceof DeadlineError || !kept) {
        if (!kept) this.#scanners.delete(frame)
        throw error
      }
      // A kept scanner fails for good once its document is gone (the frame
      // navigated since): then a new one is made. One that still answers
      // keeps its identities; the failure was the scan's own.
      if (await answers(kept)) throw error
      this.#scanners.delete(frame)
      return this.#scanOnce(frame, options, signal)
    }
  }

  /**
   * The element the frame's latest scan marked `mark`, held by a handle (see
   * `Scanner.pin`); undefined when there is no scanner or it marked none.
   */
  async pin(frame: Frame, mark: string, signal: AbortSignal): Promise<ElementHandle | undefined> {
    const kept = this.#scanners.get(frame)
    if (!kept) return undefined
    const pinning = kept.then((scanner) => scanner.evaluateHandle((scan, given) => scan.pin(given), mark))
    const found = await withDeadline(pinning, pinTimeoutMs, signal, 'element lookup')
    const element = found.asElement()
    if (!element) void found.dispose().catch(() => {})
    return element ?? undefined
  }

  /**
   * The row or card whose hover shows `element`, as the frame's latest scan found it (see
   * `Scanner.revealerOf`), held by a handle; undefined when there is no scanner or nothing to hover.
   */
  async revealer(
    frame: Frame,
    element: ElementHandle<Element>,
    signal: AbortSignal,
  ): Promise<ElementHandle | undefined> {
    const kept = this.#scanners.get(frame)
    if (!kept) return undefined
    const finding = kept.then((scanner) =>
      scanner.evaluateHandle((scan, given) => scan.revealerOf(given), element),
    )
    const found = await withDeadline(finding, pinTimeoutMs, signal, 'element lookup')
    const row = found.asElement()
    if (!row) void found.dispose().catch(() => {})
    return row ?? undefined
  }

  async #scanOnce(frame: Frame, options: ScanOptions, signal: AbortSignal): Promise<ScanResult> {
    let scanner = this.#scanners.get(frame)
    if (!scanner) {
      scanner = frame.evaluateHandle(createScanner)
      // A failed creation is retried by the next scan, not kept.
      scanner.catch(() => {
        if (this.#scanners.get(frame) === scanner) this.#scanners.delete(frame)
      })
      this.#scanners.set(frame, scanner)
    }
    const scanning = scanner.then((handle) => handle.evaluate((scan, given) => scan(given), options))
    return JSON.parse(await withDeadline(scanning, scanTimeoutMs, signal, 'page scan')) as ScanResult
  }
}

/** Whether the scanner's document is still there to run it. */
async function answers(scanner: Promise<JSHandle<Scanner>>): Promise<boolean> {
  try {
    await (await scanner).evaluate(() => true)
    return true
  } catch {
    return false
  }
}
