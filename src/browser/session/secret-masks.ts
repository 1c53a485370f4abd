import type { ElementHandle, Frame, JSHandle, Page } from 'playwright-core'
import { AbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'

/**
 * What a picture must not show: every field a secret was typed into (held by
 * an element handle, so no attribute or re-render the page makes can unmark
 * it), password fields, elements marked `data-sextant-secret`, and every field
 * or text that now shows a secret's value (a field the page re-rendered with
 * the value is a new node: the value still finds it). The boxes are measured
 * by the browser (Playwright's `boundingBox`), not by page scripts.
 */

/** Tells whether a text shows a secret's value; the values themselves never leave it (nor reach the page). */
export interface SecretMatcher {
  shows(text: string): boolean
}

/** A box in the main frame's viewport, in CSS pixels. */
export interface MaskBox {
  x: number
  y: number
  width: number
  height: number
}

/**
 * The attribute that marks an element whose content is a secret: pictures
 * blank it. A page or a tool may set it on anything that must not be seen.
 */
export const secretAttribute = 'data-sextant-secret'
/** What every picture blanks, whatever the run's secrets. */
export const maskedSelector = `input[type=password], [${secretAttribute}]`

/** Bound on finding what to mask in one frame. */
const searchDeadlineMs = 3000
/** Texts and values read from one frame at most; a frame with more is not photographed (fail closed). */
const maxCandidates = 20_000

/** The fields a secret went into during a run, and the matcher of the secrets typed there. */
export class SecretFields {
  #fields: { page: Page; handle: ElementHandle }[] = []
  #matcher: SecretMatcher | undefined

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
    const found = await Promise.all(
      page
        .frames()
        .map((frame) => withDeadline(shownIn(frame, matcher), searchDeadlineMs, signal, 'secret search')),
    )
    const boxes = await Promise.all([...kept, ...found.flat()].map(boxOf))
    if (signal.aborted) throw new AbortError()
    return boxes.filter((box): box is MaskBox => box !== undefined)
  }
}

/** A field's box now; none when it is gone or not rendered (a handle of a document that went away). */
async function boxOf(handle: ElementHandle): Promise<MaskBox | undefined> {
  const box = await handle.boundingBox().catch(() => null)
  return box && box.width > 0 && box.height > 0 ? box : undefined
}

/** The elements of one frame to blank: those the selector marks, and those whose value or text shows a secret. */
async function shownIn(frame: Frame, matcher: SecretMatcher | undefined): Promise<ElementHandle[]> {
  if (frame.isDetached()) return []
  const [marks, shown] = await Promise.all([marked(frame), matcher ? showing(frame, matcher) : []])
  return [...marks, ...shown]
}

/** The fields and texts of one frame that show a secret's value. */
async function showing(frame: Frame, matcher: SecretMatcher): Promise<ElementHandle[]> {
  // Kept by this handle alone: the page's scripts cannot reach the list to change it between reads.
  const candidates = await frame.evaluateHandle(collectCandidates, maxCandidates)
  try {
    const texts = await candidates.evaluate((found) => found.texts)
    if (texts === null) throw new Error(`the frame ${frame.url()} has too many texts to check for secrets`)
    const wanted: number[] = []
    texts.forEach((text, index) => {
      if (matcher.shows(text)) wanted.push(index)
    })
    return await Promise.all(wanted.map((index) => elementAt(candidates, index)))
  } finally {
    void candidates.dispose().catch(() => {})
  }
}

async function elementAt(candidates: JSHandle<Candidates>, index: number): Promise<ElementHandle> {
  const handle = await candidates.evaluateHandle((found, at) => found.elements[at], index)
  const element = handle.asElement()
  if (!element) throw new Error('a field to mask could not be held')
  return element as ElementHandle
}

interface Candidates {
  elements: Element[]
  /** Per element: its value or text to check. Null: too many. */
  texts: string[] | null
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
  if (frame.url().startsWith('chrome-error://')) return []
  const locator = frame.locator(maskedSelector)
  if ((await locator.count()) === 0) return []
  return locator.elementHandles()
}

/** Runs in the page: every field with a value and every element holding text, open shadow roots included. */
function collectCandidates(max: number): Candidates {
  const elements: Element[] = []
  const texts: string[] = []
  const visit = (root: Document | ShadowRoot) => {
    collectTexts(root)
    for (const element of root.querySelectorAll('*')) if (element.shadowRoot) visit(element.shadowRoot)
  }
  const collectTexts = (root: Document | ShadowRoot) => {
    for (const element of root.querySelectorAll('input, textarea')) {
      const value = (element as HTMLInputElement).value
      if (value) {
        elements.push(element)
        texts.push(value)
      }
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement
      const text = node.nodeValue ?? ''
      if (!parent || !/\S/.test(text)) continue
      elements.push(parent)
      texts.push(text)
    }
  }
  visit(document)
  return { elements, texts: elements.length > max ? null : texts }
}
