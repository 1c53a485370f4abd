import type { ElementHandle, Frame, Page } from 'playwright-core'
import { AbortError } from '../../../tool.ts'
import { withDeadline } from '../../../util/deadline.ts'
import { type MaskBox, type SecretMatcher, SecretSearch } from './secret-search.ts'

/**
 * What a picture must not show: every field a secret was typed into (held by
 * an element handle, so no attribute or re-render the page makes can unmark
 * it), password fields, elements marked `data-sextant-secret`, and every field
 * or text that now shows a secret's value (a field the page re-rendered with
 * the value is a new node: the value still finds it; see secret-search.ts).
 * The boxes are measured by the browser (Playwright's `boundingBox`, CDP's
 * box model), not by page scripts.
 */

/**
 * The attribute that marks an element whose content is a secret: pictures
 * blank it. A page or a tool may set it on anything that must not be seen.
 */
export const secretAttribute = 'data-sextant-secret'
/** What every picture blanks, whatever the run's secrets. */
export const maskedSelector = `input[type=password], [${secretAttribute}]`

/** Bound on finding what to mask in one frame. */
const searchDeadlineMs = 3000

/** The fields a secret went into during a run, and the matcher of the secrets typed there. */
export class SecretFields {
  #fields: { page: Page; handle: ElementHandle }[] = []
  #matcher: SecretMatcher | undefined
  readonly #search = new SecretSearch()

  /** Remembers a field that just received a secret; `matcher` tells the run's secret values. */
  add(page: Page, handle: ElementHandle, matcher: SecretMatcher): void {
    this.#fields.push({ page, handle })
    this.#matcher = matcher
  }

  /** Everything on `page` that a picture must blank; throws when that cannot be told (no picture then). */
  async boxes(page: Page, given: SecretMatcher | undefined, signal: AbortSignal): Promise<MaskBox[]> {
    const matcher = given ?? this.#matcher
    this.#fields = this.#fields.filter((field) => !field.page.isClosed())
    const kept = this.#fields.filter((field) => field.page === page).map((field) => field.handle)
    const [marks, shown] = await Promise.all([
      Promise.all(
        page.frames().map((frame) => withDeadline(marked(frame), searchDeadlineMs, signal, 'secret search')),
      ),
      matcher
        ? withDeadline(this.#search.search(page, matcher), searchDeadlineMs, signal, 'secret search')
        : [],
    ])
    const boxes = await Promise.all([...kept, ...marks.flat()].map(boxOf))
    if (signal.aborted) throw new AbortError()
    return [...boxes.filter((box): box is MaskBox => box !== undefined), ...shown]
  }
}

/** A field's box now; none when it is gone or not rendered (a handle of a document that went away). */
async function boxOf(handle: ElementHandle): Promise<MaskBox | undefined> {
  const box = await handle.boundingBox().catch(() => null)
  return box && box.width > 0 && box.height > 0 ? box : undefined
}

/**
 * Without secrets only marked elements are blanked. They are found by
 * Playwright's selector engine, which runs in its own isolated world (open
 * shadow roots included): a page that redefines `querySelectorAll` cannot
 * hide a password field from it. Most frames have none, and saying so takes
 * one round trip. A frame showing Chromium's own error page (its load failed;
 * the URL is the browser's, not the page's) holds nothing a page put there:
 * pages with many blocked frames (ads) are spared a round trip for each.
 */
async function marked(frame: Frame): Promise<ElementHandle[]> {
  if (frame.isDetached() || frame.url().startsWith('chrome-error://')) return []
  const locator = frame.locator(maskedSelector)
  if ((await locator.count()) === 0) return []
  return locator.elementHandles()
}
