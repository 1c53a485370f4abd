import type { CDPSession, Frame, Page } from 'playwright-core'
import { PageCdpSessions } from '../../session/cdp-sessions.ts'
import { pageName } from '../page-name.ts'
import { kindsByNode, type Listener, windowWordsOf } from './listener-kinds.ts'

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
   * The targets whose stores this capture brought up to date, by the token
   * their stores are filed under (a store under another token is left from a
   * lookup that failed or from a document since replaced, and is not read),
   * each with its window's words.
   */
  targets: Record<string, string[]>
}

/** What a lookup brought up to date, and whether it found anything changed since the one before it. */
export interface PreparedListeners {
  handoff: ListenerHandoff
  /**
   * False when every store holds what it held after the page's last lookup,
   * under the same tokens, with the same window words: a scan that read them
   * meanwhile read what this lookup vouches for.
   */
  changed: boolean
}

/** Elements filed per target: filing one costs two CDP messages; the document's first ones are kept. */
export const maxListenerElements = 600

/**
 * Listeners a target's process may hold for the lookup to ask where they are.
 * The browser's answer lists every listener (about 140 bytes each), and
 * Playwright parses it in one piece on the server's event loop: 200,000 made
 * a 27 MB answer that held every other run and `/healthz` for seconds. The
 * count is the renderer's own (CDP `Memory.getDOMCounters`: every listener a
 * script ever added and not yet collected, duplicates and other documents of
 * the process included), so a page can raise it but never lower it below what
 * the answer would hold. Above it, the target's elements get no listener
 * kinds (their cursor, `onclick` and tab stops still count).
 */
export const maxListeners = 20_000

/** What a target's stores hold, as this side last filed it. */
interface TargetState {
  /** Written on every store filed since the last full filing. */
  token: string
  /** Each filed node's kinds, joined. */
  filed: Map<number, string>
  /** The lookup in progress: lookups of one target take turns, each diffing against the last. */
  turn: Promise<unknown>
  /** Handles on the target's document and window, kept while they live: asking for them again each time was a round trip. */
  handles?: Handles
  /** The last lookup found more listeners than `maxListeners`, and asked for none. */
  crowded?: boolean
}

/** A page's lookups: how many have started, and the handoff the last one left (none while one runs). */
interface PageState {
  lookups: number
  latest?: ListenerHandoff | undefined
}

interface Handles {
  document: string
  window: string
}

/** What one target's lookup hands the scanners. */
interface TargetAnswer {
  token: string
  window: string[]
  /** Whether it filed anything (a new store counts). */
  filed: boolean
}

const objectGroup = 'sextant-listeners'

export class ListenerLookup {
  readonly #sessions = new PageCdpSessions()
  readonly #frameSessions = new WeakMap<Frame, Promise<CDPSession | undefined>>()
  readonly #states = new WeakMap<CDPSession, TargetState>()
  readonly #pages = new WeakMap<Page, PageState>()
  readonly #key = pageName('__')

  /**
   * Brings the listener stores of the page's own target (its document and
   * the iframes in its process) up to date for the scanners. Undefined when
   * the browser would not say (the scan then goes on without). An
   * out-of-process iframe is asked only when a view scans it (`forFrame`):
   * asking each of a page's ad frames on every view cost a round trip apiece.
   */
  async prepare(page: Page): Promise<PreparedListeners | undefined> {
    const pageState = this.#pages.get(page) ?? { lookups: 0 }
    this.#pages.set(page, pageState)
    const mine = ++pageState.lookups
    const earlier = pageState.latest
    pageState.latest = undefined
    try {
      const answer = await this.#sessions.use(page, (cdp) => this.#update(cdp))
      const handoff = { key: this.#key, targets: { [answer.token]: answer.window } }
      // Another lookup of the page that started since may have filed what this one then found in place.
      const alone = pageState.lookups === mine
      if (alone) pageState.latest = handoff
      const changed =
        !earlier ||
        !alone ||
        answer.filed ||
        JSON.stringify(earlier.targets) !== JSON.stringify(handoff.targets)
      return { handoff, changed }
    } catch {
      return undefined
    }
  }

  /**
   * The handoff for the scan of a child frame: the page's, and, when the
   * frame runs in a process of its own, its target's stores brought up to
   * date too. The page's alone when its target would not say.
   */
  async forFrame(
    page: Page,
    frame: Frame,
    handoff: ListenerHandoff | undefined,
  ): Promise<ListenerHandoff | undefined> {
    const cdp = await this.#frameSession(page, frame)
    if (!cdp) return handoff
    const answer = await this.#update(cdp).catch(() => undefined)
    if (!answer) return handoff
    return { key: this.#key, targets: { ...handoff?.targets, [answer.token]: answer.window } }
  }

  /**
   * The handoff the page's last lookup left its stores as; none while a
   * lookup of it is under way or after one failed. A scan may start on it
   * before this capture's lookup answers, and keep its result if that lookup
   * finds nothing changed.
   */
  latest(page: Page): ListenerHandoff | undefined {
    return this.#pages.get(page)?.latest
  }

  /** One target's stores brought up to date, after the lookup before it. */
  #update(cdp: CDPSession): Promise<TargetAnswer> {
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
      target.handles = undefined
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
async function update(cdp: CDPSession, key: string, state: TargetState): Promise<TargetAnswer> {
  const { jsEventListeners } = await cdp.send('Memory.getDOMCounters')
  if (jsEventListeners > maxListeners) {
    // A token no store is filed under: the scanners read none, and the next lookup under the bound files all afresh.
    const already = state.crowded === true
    state.crowded = true
    if (!already) {
      state.token = newToken()
      state.filed.clear()
    }
    return { token: state.token, window: [], filed: !already }
  }
  state.crowded = false
  const next = newToken()
  const ask = (handles: Handles) =>
    Promise.all([
      cdp.send('DOMDebugger.getEventListeners', { objectId: handles.document, depth: -1, pierce: true }),
      cdp.send('DOMDebugger.getEventListeners', { objectId: handles.window, depth: 0 }),
      cdp.send('Runtime.callFunctionOn', {
        objectId: handles.document,
        functionDeclaration: syncStore.toString(),
        arguments: [{ value: key }, { value: state.token }, { value: next }],
        returnByValue: true,
      }),
    ])
  const kept = state.handles
  let answers: Awaited<ReturnType<typeof ask>>
  try {
    state.handles = kept ?? (await handlesOf(cdp))
    answers = await ask(state.handles)
  } catch (error) {
    if (!kept) throw error
    // The document they named is gone (the frame went to another): ask for the new one's.
    for (const objectId of Object.values(kept))
      void cdp.send('Runtime.releaseObject', { objectId }).catch(() => {})
    state.handles = await handlesOf(cdp)
    answers = await ask(state.handles)
  }
  const [inDocument, onWindow, synced] = answers
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
  if (changes.length > 0) await file(cdp, key, state, changes)
  return {
    token: state.token,
    window: windowWordsOf(onWindow.listeners as Listener[]),
    filed: changes.length > 0 || synced.result.value !== true,
  }
}

/** The target's document and window, as handles kept until released (no object group: see below). */
async function handlesOf(cdp: CDPSession): Promise<Handles> {
  // Without an object group: with one, getEventListeners also describes every listener's handler, source and all.
  const [document, window] = await Promise.all([
    cdp.send('Runtime.evaluate', { expression: 'document' }),
    cdp.send('Runtime.evaluate', { expression: 'window' }),
  ])
  if (!document.result.objectId || !window.result.objectId)
    throw new Error('The page has no document to look up listeners on.')
  return { document: document.result.objectId, window: window.result.objectId }
}

/** Files each changed node's kinds in its document's store (null: takes it out). */
async function file(
  cdp: CDPSession,
  key: string,
  state: TargetState,
  changes: [number, string[] | null][],
): Promise<void> {
  try {
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
  } finally {
    void cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {})
  }
}

/** A document's store of the nodes filed in it, as `page-scan.ts` reads it. */
interface Store {
  token: string
  elements: Map<Element, string[]>
  /** The document's own words. */
  document: string[]
}

/**
 * Runs on the target's document, in its main world: whether its store is
 * under `token` (when not, a fresh one is made under `next`).
 */
function syncStore(this: Document, key: string, token: string, next: string): boolean {
  const held = Object.getOwnPropertyDescriptor(this, key)?.value as Store | undefined
  if (held?.token === token && held.elements instanceof Map) return true
  const store: Store = { token: next, elements: new Map(), document: [] }
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
    held = { token, elements: new Map(), document: [] }
    Object.defineProperty(owner, key, { value: held, configurable: true, enumerable: false })
  }
  if (this.nodeType === 9) held.document = kinds ?? []
  else if (this.nodeType === 1) {
    if (kinds) held.elements.set(this as Element, kinds)
    else held.elements.delete(this as Element)
  }
}
