import type { CDPSession, Frame, Page } from 'playwright-core'
import { PageCdpSessions } from '../session/cdp-sessions.ts'

/**
 * Which elements a page's scripts made respond to the pointer or keyboard,
 * asked of the browser (CDP `DOMDebugger.getEventListeners` on each target's
 * document, depth -1, piercing shadow roots and in-process iframes), not of
 * the page: a page script can neither hide a listener it added from this
 * nor make one up. The elements found are handed to each frame's scanner
 * (`page-scan.ts`) in a map kept on their document under a random key
 * (`ListenerHandoff`), which the scanner takes and deletes. A page that finds
 * the key and edits the map between the two calls can only add or remove
 * elements it could equally add or remove listeners from: nothing rests on
 * the map but which elements get a ref and a kind.
 */

/** Where a capture's listener map waits for the scanner of each frame. */
export interface ListenerHandoff {
  /** The property of each document that holds the map (non-enumerable, deleted by the scanner). */
  key: string
  /** This capture's number: a map a frame left unread from an earlier capture is not taken. */
  capture: number
}

/**
 * Event types that make an element act on its own, and the words each gives
 * the scanner. `root` marks a delegation root (React's container, a jQuery
 * `document.on(…)`): its listeners serve its descendants. `down`, `move` and
 * `release` tell a drag by the mouse (which `drag` performs: mouse events and
 * the pointer events they make, never touch events) from a mere press: a
 * grid cell or a menu listens for presses and hovers for other reasons.
 */
const kindOf: Record<string, string[]> = {
  click: ['click'],
  mousedown: ['press', 'down'],
  pointerdown: ['press', 'down'],
  mouseup: ['press', 'release'],
  pointerup: ['press', 'release'],
  touchstart: ['press'],
  dblclick: ['dblclick'],
  contextmenu: ['contextmenu'],
  keydown: ['key'],
  dragstart: ['dragstart'],
  dragover: ['drop'],
  drop: ['drop'],
  dragenter: ['drop'],
  // A menu that opens its submenu when the pointer enters: `hover` is how to reach it.
  mouseenter: ['hover'],
  mouseover: ['hover'],
  pointerenter: ['hover'],
  pointermove: ['move'],
  mousemove: ['move'],
}
/** The words of a window's listeners the scanner reads: where a drag that leaves its element is followed. */
const windowKinds = new Set(['move', 'release'])
/** Listening for this many of the kinds above is delegating (React's root listens for them all). */
const delegationKinds = 7
/**
 * Words not counted toward delegation: `down` and `release` refine a `press`, and hovering is not one of
 * the kinds a delegation root was told by.
 */
const uncounted = new Set(['down', 'release', 'hover'])
/** Elements resolved per target and capture: each costs the browser a lookup; the document's first ones are kept. */
export const maxListenerElements = 600

interface Listener {
  type: string
  backendNodeId?: number
}

const objectGroup = 'sextant-listeners'

export class ListenerLookup {
  readonly #sessions = new PageCdpSessions()
  readonly #frameSessions = new WeakMap<Frame, Promise<CDPSession | undefined>>()
  readonly #key = `__sextant${Math.random().toString(36).slice(2, 12)}`
  #captures = 0

  /**
   * Finds the listening elements of every target of `page` (the page's own,
   * and each out-of-process iframe's) and leaves them for the scanners.
   * Undefined when the browser would not say (the scan then goes on without).
   */
  async prepare(page: Page): Promise<ListenerHandoff | undefined> {
    const capture = ++this.#captures
    const handoff = { key: this.#key, capture }
    const others = page.frames().filter((frame) => frame !== page.mainFrame() && !frame.isDetached())
    const sessions = await Promise.all(others.map((frame) => this.#frameSession(page, frame)))
    const work = [
      this.#sessions.use(page, (cdp) => handOver(cdp, handoff)),
      ...sessions.flatMap((cdp) => (cdp ? [handOver(cdp, handoff).catch(() => 0)] : [])),
    ]
    try {
      await Promise.all(work)
      return handoff
    } catch {
      return undefined
    }
  }

  /** An out-of-process frame's own session; undefined for a frame in its parent's process (the parent's lookup pierces it). */
  #frameSession(page: Page, frame: Frame): Promise<CDPSession | undefined> {
    let known = this.#frameSessions.get(frame)
    if (!known) {
      known = page
        .context()
        .newCDPSession(frame)
        .catch(() => undefined)
      this.#frameSessions.set(frame, known)
    }
    return known
  }
}

/** Looks the target's listeners up and hands each listening element its kinds; how many were handed. */
async function handOver(cdp: CDPSession, handoff: ListenerHandoff): Promise<number> {
  try {
    const [documentObject, windowObject] = await Promise.all([
      cdp.send('Runtime.evaluate', { expression: 'document', objectGroup }),
      cdp.send('Runtime.evaluate', { expression: 'window', objectGroup }),
    ])
    const documentId = documentObject.result.objectId
    const windowId = windowObject.result.objectId
    if (!documentId || !windowId) return 0
    const [inDocument, onWindow] = await Promise.all([
      cdp.send('DOMDebugger.getEventListeners', { objectId: documentId, depth: -1, pierce: true }),
      cdp.send('DOMDebugger.getEventListeners', { objectId: windowId, depth: 0 }),
    ])
    const windowWords = [
      ...new Set((onWindow.listeners as Listener[]).flatMap((listener) => kindOf[listener.type] ?? [])),
    ].filter((word) => windowKinds.has(word))
    const kinds = kindsByNode(inDocument.listeners as Listener[])
    const handed = [...kinds].slice(0, maxListenerElements).map(async ([backendNodeId, words]) => {
      const resolved = await cdp
        .send('DOM.resolveNode', { backendNodeId, objectGroup })
        .catch(() => undefined)
      const objectId = resolved?.object.objectId
      if (!objectId) return
      await cdp
        .send('Runtime.callFunctionOn', {
          objectId,
          functionDeclaration: keepListening.toString(),
          arguments: [
            { value: handoff.key },
            { value: handoff.capture },
            { value: words },
            { value: windowWords },
          ],
        })
        .catch(() => {})
    })
    await Promise.all(handed)
    return handed.length
  } finally {
    void cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {})
  }
}

/** Each listening node's kinds, `root` for a delegation root. */
export function kindsByNode(listeners: Listener[]): Map<number, string[]> {
  const byNode = new Map<number, Set<string>>()
  for (const listener of listeners) {
    const words = kindOf[listener.type]
    if (!words || listener.backendNodeId === undefined) continue
    let kinds = byNode.get(listener.backendNodeId)
    if (!kinds) {
      kinds = new Set()
      byNode.set(listener.backendNodeId, kinds)
    }
    for (const word of words) kinds.add(word)
  }
  const result = new Map<number, string[]>()
  for (const [node, kinds] of byNode) {
    const counted = [...kinds].filter((kind) => !uncounted.has(kind)).length
    result.set(node, counted >= delegationKinds ? ['root', ...kinds] : [...kinds])
  }
  return result
}

/**
 * Runs on the listening node, in its frame's main world: files it in its
 * document's map for this capture (a fresh map for a new capture). The
 * document and window carry their own words in the map's `document` entry
 * (the window's `move` and `release` only).
 */
function keepListening(
  this: Node,
  key: string,
  capture: number,
  kinds: string[],
  windowWords: string[],
): void {
  const owner = this.nodeType === 9 ? (this as Document) : this.ownerDocument
  if (!owner) return
  interface Held {
    capture: number
    elements: Map<Element, string[]>
    document: string[]
  }
  const described = Object.getOwnPropertyDescriptor(owner, key)
  let held = described?.value as Held | undefined
  if (held?.capture !== capture) {
    held = { capture, elements: new Map(), document: [...windowWords] }
    Object.defineProperty(owner, key, { value: held, configurable: true, enumerable: false })
  }
  if (this.nodeType === 9) held.document.push(...kinds)
  else if (this.nodeType === 1) held.elements.set(this as Element, kinds)
}
