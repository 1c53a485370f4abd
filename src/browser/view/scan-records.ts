/**
 * What the page scan reports (see `page-scan.ts`): for each element on screen
 * (or anywhere, for `find`) that is clickable or whose state the role hides, a
 * record keyed by its box, the same rounded `getBoundingClientRect()` the
 * snapshot reports, so records can be laid onto the snapshot's nodes.
 */

import type { ListenerHandoff } from './listeners/listener-lookup.ts'

export interface ScanOptions {
  /** The attribute tags are set in; the scan clears earlier ones. */
  attribute: string
  /** Records elements off screen too (for `find`). */
  wholePage: boolean
  /** Where the browser's answer of which elements listen waits (see `listeners/listener-lookup.ts`); none: not asked. */
  listeners?: ListenerHandoff
}

export interface ScanRecord {
  box: string
  tag: string
  /**
   * The element's identity: a number the scan gives each element once and
   * keeps on it (in a WeakMap of the page) for the document's lifetime, so the
   * same DOM node has the same id in every scan, whatever its label.
   */
  id: number
  /** Clickable by the addressability rule (interactive tag or role, handler, tabindex, pointer cursor root). */
  clickable: boolean
  inputType?: string
  multiline?: boolean
  editable?: boolean
  readonly?: boolean
  multiple?: boolean
  /** Made draggable by the page: the `draggable` attribute, a grab or move cursor, a drag handle's class. */
  draggable?: boolean
  /**
   * What its listeners tell beyond a click (see `listeners/listener-lookup.ts`): `dblclick`, `contextmenu`, and
   * `click` when it also takes a plain click (a press or click listener).
   */
  listens?: string[]
  /** Takes drops: a `dragover`/`drop` listener, or the list or column a pointer-dragged element sits in (and its like). */
  droppable?: boolean
  /** A container that scrolls its own content (overflow auto or scroll, and more content than room). */
  scrollable?: boolean
  /** A scrolling container's room left to scroll each way, in CSS pixels. */
  scrollRoom?: { up: number; down: number; left: number; right: number }
  /** A slider's value and bounds (a range input's, or an ARIA slider's `aria-value*`), as the page writes them. */
  range?: { value: string; min: string; max: string }
  expanded?: boolean
  /** A tree item that holds others (nested list, or a folder class). */
  folder?: boolean
  /** A password field with a value: never show it. */
  masked?: boolean
  /** For an element without a name: title, alt, icon class or image file name. */
  hint?: string
  /** Inside a late overlay (a positioned element appended at the end of body): kept in the view whatever the cap. */
  overlay?: boolean
  /**
   * Set on clickable elements that are neither native controls nor have an
   * interactive role, which the snapshot may have folded into their parent:
   * the attribute value the scan set on them, so an action can reach them
   * when the snapshot has no node of their own.
   */
  mark?: string
  /** Set by the page view once the element is tagged: the attribute's value. */
  tagged?: string
  text?: string
  role?: string
  /** Shown only while an ancestor (its row, its card) is hovered: acting on it hovers that first. */
  onHover?: boolean
  /** Box keys of the element's ancestors, nearest first: where it goes in the tree if tagged. */
  parents?: string[]
}

export interface ScrollInfo {
  scrollX: number
  scrollY: number
  viewportWidth: number
  viewportHeight: number
  scrollWidth: number
  scrollHeight: number
}

export interface ScanResult extends ScrollInfo {
  title: string
  /** Random per document (kept in the page): ids and Playwright refs only mean something within one document. */
  documentId: string
  records: ScanRecord[]
  /**
   * Elements the scan would have recorded but left out for being off screen
   * (0 for a whole-page scan): with none, the viewport's scan is the whole page's.
   */
  offScreen: number
  /** Boxes of what is leaving (inert, or fading out): offered without refs. */
  leaving?: string[]
  /** Boxes of what a stale `aria-hidden` claims hidden and the screen shows, taking the pointer: offered, marked. */
  shownHidden?: string[]
  /** Boxes of what holds hover-revealed elements and is hidden until hovered: in the view where its row is. */
  concealed?: string[]
}
