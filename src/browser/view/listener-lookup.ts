import type { CDPSession, Frame, Page } from 'playwright-core'
import { PageCdpSessions } from '../session/cdp-sessions.ts'

/**
 * Which elements a page's scripts made respond to the pointer or keyboard,
 * asked of the browser (CDP `DOMDebugger.getEventListeners` on each target's
 * document, depth -1, piercing shadow roots and in-process iframes), not of
 * the page: a page script can neither hide a listener it added from this
 * nor make one up. The elements found are handed to each frame's scanner
 * (`page-scan.ts`) in a store kept on their document under a random key
 * (`ListenerHandoff`), which the scanner reads. A page that finds the key and
 * edits the store can only add or remove elements it could equally add or
 * remove listeners from: nothing rests on the store but which elements get a
 * ref and a kind.
 *
 * Handing an element over costs two CDP messages (resolve the node, file it),
 * and each message costs Playwright a stack trace and a pipe write: on a page
 * of a few hundred listening elements that was most of a view's build time.
 * So the stores outlive a capture, and a capture sends only what changed
 * since the last one: the elements that began or stopped listening, or
 * changed kinds. The first capture of a document sends them all.
 */

/** Where a capture's listener stores wait for the scanner of each frame. */
export interface ListenerHandoff {
  /** The property of each document that holds its store (non-enumerable). */
  key: string
  /**
   * The stores this capture brought up to date, one token per target: a store
   * under another token is left from a lookup that failed or from a document
   * since replaced, and is not read.
   */
  tokens: string[]
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
/** Elements filed per target: filing one costs two CDP messages; the document's first ones are kept. */
export const maxListenerElements = 600

interface Listener {
  type: string
  backendNodeId?: number
}

/** What a target's stores hold, as this side last filed it. */
interface TargetState {
  /** Written on every store filed since the last full filing. */
  token: string
  /** Each filed node's kinds, joined. */
  filed: Map<number, string>
  /** The lookup in progress: lookups of one target take turns, each diffing against the last. */
  turn: Promise<unknown>
}

const objectGroup = 'sextant-listeners'

export class ListenerLookup {
  readonly #sessions = new PageCdpSessions()
  readonly #frameSessions = new WeakMap<Frame, Promise<CDPSession | undefined>>()
  readonly #states = new WeakMap<CDPSession, TargetState>()
  readonly #key = `__sextant${Math.random().toString(36).slice(2, 12)}`

  /**
   * Brings the listener stores of every target of `page` (the page's own, and
   * each out-of-process iframe's) up to date for the scanners. Undefined when
   * the browser would not say for the page's own target (the scan then goes
   * on without).
   */
  async prepare(page: Page): Promise<ListenerHandoff | undefined> {
    const others = page.frames().filter((frame) => frame !== page.mainFrame() && !frame.isDetached())
    const sessions = await Promise.all(others.map((frame) => this.#frameSession(page, frame)))
    const work = [
      this.#sessions.use(page, (cdp) => this.#update(cdp)),
      ...sessions.flatMap((cdp) => (cdp ? [this.#update(cdp).catch(() => undefined)] : [])),
    ]
    try {
      const tokens = await Promise.all(work)
      return { key: this.#key, tokens: tokens.filter((token) => token !== undefined) }
    } catch {
      return undefined
    }
  }

  /** One target's stores brought up to date, after the lookup before it; the token they are under. */
  #update(cdp: CDPSession): Promise<string> {
    let state = this.#states.get(cdp)
    if (!state) {
      state = { token: newToken(), filed: new Map(), turn: Promise.resolve() }
      this.#states.set(cdp, state)
    }
    const target = state
    const updating = target.turn.then(() => update(cdp, this.#key, target))
    target.turn = updating.catch(() => {
      // A lookup that failed part way leaves stores no one can vouch for: the next files everything afresh.
      target.token = newToken()
      target.filed.clear()
    })
    return updating
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

function newToken(): string {
  return Math.random().toString(36).slice(2, 12)
}

/**
 * Looks the target's listeners up and files what changed since `state` was
 * filed; everything, when the page's document has no store under the token
 * (a new document, or a store the page replaced).
 */
async function update(cdp: CDPSession, key: string, state: TargetState): Promise<string> {
  // Without an object group: with one, the browser also describes every listener's handler, source text and all.
  const [documentObject, windowObject] = await Promise.all([
    cdp.send('Runtime.evaluate', { expression: 'document' }),
    cdp.send('Runtime.evaluate', { expression: 'window' }),
  ])
  const documentId = documentObject.result.objectId
  const windowId = windowObject.result.objectId
  let resolved = false
  try {
    if (!documentId || !windowId) throw new Error('The page has no document to look up listeners on.')
    const [inDocument, onWindow] = await Promise.all([
      cdp.send('DOMDebugger.getEventListeners', { objectId: documentId, depth: -1, pierce: true }),
      cdp.send('DOMDebugger.getEventListeners', { objectId: windowId, depth: 0 }),
    ])
    const windowWords = [
      ...new Set((onWindow.listeners as Listener[]).flatMap((listener) => kindOf[listener.type] ?? [])),
    ].filter((word) => windowKinds.has(word))
    const next = newToken()
    const synced = await cdp.send('Runtime.callFunctionOn', {
      objectId: documentId,
      functionDeclaration: syncStore.toString(),
      arguments: [{ value: key }, { value: state.token }, { value: next }, { value: windowWords }],
      returnByValue: true,
    })
    if (synced.result.value !== true) {
      // Every store is filed afresh under a new token, so none left under the old one (an iframe's) is read.
      state.token = next
      state.filed.clear()
    }
    const listening = new Map(
      [...kindsByNode(inDocument.listeners as Listener[])].slice(0, maxListenerElements),
    )
    const changes: [number, string[] | null][] = []
    for (const [node, kinds] of listening)
      if (state.filed.get(node) !== kinds.join()) changes.push([node, kinds])
    for (const node of state.filed.keys()) if (!listening.has(node)) changes.push([node, null])
    resolved = changes.length > 0
    await Promise.all(
      changes.map(async ([backendNodeId, kinds]) => {
        state.filed.delete(backendNodeId)
        const node = await cdp.send('DOM.resolveNode', { backendNodeId, objectGroup }).catch(() => undefined)
        const objectId = node?.object.objectId
        if (!objectId) return
        const filed = await cdp
          .send('Runtime.callFunctionOn', {
            objectId,
            functionDeclaration: fileNode.toString(),
            arguments: [{ value: key }, { value: state.token }, { value: kinds }],
          })
          .then(
            () => true,
            () => false,
          )
        if (filed && kinds) state.filed.set(backendNodeId, kinds.join())
      }),
    )
    return state.token
  } finally {
    for (const objectId of [documentId, windowId])
      if (objectId) void cdp.send('Runtime.releaseObject', { objectId }).catch(() => {})
    if (resolved) void cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {})
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

/** A document's store of the nodes filed in it, as `page-scan.ts` reads it. */
interface Store {
  token: string
  elements: Map<Element, string[]>
  /** The document's own words. */
  document: string[]
  /** Its window's `move` and `release` (the target's own document only). */
  window: string[]
}

/**
 * Runs on the target's document, in its main world: whether its store is
 * under `token` (when not, a fresh one is made under `next`), with the
 * window's words brought up to date.
 */
function syncStore(this: Document, key: string, token: string, next: string, windowWords: string[]): boolean {
  const held = Object.getOwnPropertyDescriptor(this, key)?.value as Store | undefined
  if (held?.token === token && held.elements instanceof Map) {
    held.window = windowWords
    return true
  }
  const store: Store = { token: next, elements: new Map(), document: [], window: windowWords }
  Object.defineProperty(this, key, { value: store, configurable: true, enumerable: false })
  return false
}

/**
 * Runs on a listening node (or one that stopped), in its frame's main world:
 * files its kinds in its document's store, or takes it out (`kinds` null). A
 * store under another token is from before the target's last full filing,
 * and is started afresh.
 */
function fileNode(this: Node, key: string, token: string, kinds: string[] | null): void {
  const owner = this.nodeType === 9 ? (this as Document) : this.ownerDocument
  if (!owner) return
  let held = Object.getOwnPropertyDescriptor(owner, key)?.value as Store | undefined
  if (held?.token !== token || !(held.elements instanceof Map)) {
    held = { token, elements: new Map(), document: [], window: [] }
    Object.defineProperty(owner, key, { value: held, configurable: true, enumerable: false })
  }
  if (this.nodeType === 9) held.document = kinds ?? []
  else if (this.nodeType === 1) {
    if (kinds) held.elements.set(this as Element, kinds)
    else held.elements.delete(this as Element)
  }
}
