import type { CDPSession, Frame, Page } from 'playwright-core'
import { PageCdpSessions } from '../cdp-sessions.ts'

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
 * Finds the fields and texts of a page that show a secret's value, where the
 * page's own scripts cannot hide them. The search runs in an isolated world
 * of each frame, made through CDP: the DOM is the page's, but the built-ins
 * are the world's own, so a page that redefines `querySelectorAll`, tree
 * walkers or an input's `value` changes nothing it reads. The matches are
 * measured by the browser (`DOM.getBoxModel`), and the values themselves
 * never leave Node: the world hands out texts, Node says which show a secret.
 *
 * A frame in another renderer process (a cross-site iframe) has a target of
 * its own: it is searched through its own session, and its boxes are moved
 * by where its frame's content box is in its parent, as the browser lays it
 * out (`DOM.getFrameOwner`), up to the page.
 */

/** Texts and values read from one frame at most; a frame with more is not photographed (fail closed). */
export const maxCandidates = 20_000

const worldName = 'sextant-secret-search'
/** Every object the search holds in the page, let go together once it is done. */
const objectGroup = 'sextant-secret-search'

interface FrameTree {
  frame: { id: string }
  childFrames?: FrameTree[]
}

/** A frame with a target of its own, and its session. */
interface FrameTarget {
  frame: Frame
  cdp: CDPSession
}

interface Offset {
  x: number
  y: number
}

export class SecretSearch {
  readonly #sessions = new PageCdpSessions()
  /** The isolated world made in each frame (by CDP frame id), per session; one whose document went is made anew. */
  readonly #worlds = new WeakMap<CDPSession, Map<string, number>>()
  /** A frame's own session when it has a target of its own (none: it is in its parent's), as found for its URL's origin. */
  readonly #frameSessions = new WeakMap<Frame, { origin: string; session: Promise<CDPSession | undefined> }>()

  /** The boxes, in the page's viewport, of everything on `page` that shows a secret's value. */
  async search(page: Page, matcher: SecretMatcher): Promise<MaskBox[]> {
    const main = page.mainFrame()
    const frames = page.frames().filter((frame) => frame !== main && !frame.isDetached())
    const sessions = await Promise.all(frames.map((frame) => this.#frameSession(page, frame)))
    const targets: FrameTarget[] = frames.flatMap((frame, index) => {
      const cdp = sessions[index]
      return cdp ? [{ frame, cdp }] : []
    })
    return this.#sessions.use(page, async (pageCdp) => {
      const offsets = new Map<Frame, Promise<Offset>>()
      /** The session a frame's document is in: the nearest frame up with a target of its own, else the page's. */
      const targetOf = (frame: Frame | null): FrameTarget | undefined => {
        for (let at = frame; at && at !== main; at = at.parentFrame()) {
          const found = targets.find((target) => target.frame === at)
          if (found) return found
        }
        return undefined
      }
      const offsetOf = (target: FrameTarget, rootId: string): Promise<Offset> => {
        let known = offsets.get(target.frame)
        if (!known) {
          known = (async () => {
            const parent = targetOf(target.frame.parentFrame())
            const [base, origin] = await Promise.all([
              parent ? offsetOf(parent, await rootIdOf(parent.cdp)) : { x: 0, y: 0 },
              contentOrigin(parent?.cdp ?? pageCdp, rootId),
            ])
            return { x: base.x + origin.x, y: base.y + origin.y }
          })()
          offsets.set(target.frame, known)
        }
        return known
      }
      const inFrames = targets.map(async (target) => {
        try {
          const { rootId, boxes } = await this.#inTarget(target.cdp, matcher)
          if (boxes.length === 0) return []
          const offset = await offsetOf(target, rootId)
          return boxes.map((box) => ({ ...box, x: box.x + offset.x, y: box.y + offset.y }))
        } catch (error) {
          // A session that broke (its frame moved to another process) is made anew for the next picture.
          this.#frameSessions.delete(target.frame)
          throw error
        }
      })
      const found = await Promise.all([
        this.#inTarget(pageCdp, matcher).then(({ boxes }) => boxes),
        ...inFrames,
      ])
      return found.flat()
    })
  }

  async #inTarget(cdp: CDPSession, matcher: SecretMatcher): Promise<{ rootId: string; boxes: MaskBox[] }> {
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: FrameTree }
    const ids: string[] = []
    const collect = (tree: FrameTree) => {
      ids.push(tree.frame.id)
      for (const child of tree.childFrames ?? []) collect(child)
    }
    collect(frameTree)
    const worlds = this.#worldsOf(cdp)
    for (const id of worlds.keys()) if (!ids.includes(id)) worlds.delete(id)
    try {
      const found = await Promise.all(ids.map((id) => this.#inFrame(cdp, id, matcher)))
      return { rootId: frameTree.frame.id, boxes: found.flat() }
    } finally {
      void cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {})
    }
  }

  async #inFrame(cdp: CDPSession, frameId: string, matcher: SecretMatcher): Promise<MaskBox[]> {
    const candidates = await this.#collect(cdp, frameId)
    if (candidates === undefined) return []
    const texts = await cdp.send('Runtime.callFunctionOn', {
      objectId: candidates,
      functionDeclaration: 'function () { return this.texts }',
      returnByValue: true,
    })
    const values = texts.result.value as string[] | null
    if (values === null) throw new Error('a frame of the page has too many texts to check for secrets')
    const wanted: number[] = []
    values.forEach((text, index) => {
      if (matcher.shows(text)) wanted.push(index)
    })
    const boxes = await Promise.all(wanted.map((index) => boxAt(cdp, candidates, index)))
    return boxes.filter((box): box is MaskBox => box !== undefined)
  }

  /** The frame's candidates, held in its isolated world; undefined when the frame has no document now. */
  async #collect(cdp: CDPSession, frameId: string): Promise<string | undefined> {
    for (let attempt = 0; ; attempt++) {
      const contextId = await this.#world(cdp, frameId)
      if (contextId === undefined) return undefined
      try {
        const { result, exceptionDetails } = await cdp.send('Runtime.callFunctionOn', {
          executionContextId: contextId,
          functionDeclaration: collectCandidates.toString(),
          arguments: [{ value: maxCandidates }],
          objectGroup,
        })
        if (exceptionDetails) throw new Error(`the secret search failed in a frame: ${exceptionDetails.text}`)
        return result.objectId
      } catch (error) {
        // The world went with its document (the frame navigated): it is made again, once.
        this.#worldsOf(cdp).delete(frameId)
        if (attempt > 0) throw error
      }
    }
  }

  async #world(cdp: CDPSession, frameId: string): Promise<number | undefined> {
    const worlds = this.#worldsOf(cdp)
    const known = worlds.get(frameId)
    if (known !== undefined) return known
    const made = await cdp
      .send('Page.createIsolatedWorld', { frameId, worldName, grantUniveralAccess: false })
      .catch(() => undefined)
    // A frame that went away since the tree was read has nothing to show.
    if (!made) return undefined
    worlds.set(frameId, made.executionContextId)
    return made.executionContextId
  }

  #worldsOf(cdp: CDPSession): Map<string, number> {
    let worlds = this.#worlds.get(cdp)
    if (!worlds) {
      worlds = new Map()
      this.#worlds.set(cdp, worlds)
    }
    return worlds
  }

  /**
   * The frame's own session, when it has a target of its own: Playwright
   * gives a CDP session only to such a frame, and says so of any other. Any
   * other failure fails the search: no picture rather than a frame unsearched.
   */
  #frameSession(page: Page, frame: Frame): Promise<CDPSession | undefined> {
    const origin = originOf(frame.url())
    const known = this.#frameSessions.get(frame)
    if (known && known.origin === origin) return known.session
    const session = page
      .context()
      .newCDPSession(frame)
      .catch((error: unknown) => {
        if (String(error).includes('does not have a separate CDP session')) return undefined
        this.#frameSessions.delete(frame)
        throw error
      })
    this.#frameSessions.set(frame, { origin, session })
    return session
  }
}

async function rootIdOf(cdp: CDPSession): Promise<string> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: FrameTree }
  return frameTree.frame.id
}

/** Where the content box of the frame `frameId` is in the viewport of the target `parent` holds its owner in. */
async function contentOrigin(parent: CDPSession, frameId: string): Promise<Offset> {
  const owner = await parent.send('DOM.getFrameOwner', { frameId })
  const { model } = await parent.send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId })
  const quad = model.content
  return { x: Math.min(quad[0] ?? 0, quad[6] ?? 0), y: Math.min(quad[1] ?? 0, quad[3] ?? 0) }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** The border box of the candidate at `index`, as the browser lays it out; none when it is not rendered. */
async function boxAt(cdp: CDPSession, candidates: string, index: number): Promise<MaskBox | undefined> {
  const element = await cdp.send('Runtime.callFunctionOn', {
    objectId: candidates,
    functionDeclaration: 'function (index) { return this.elements[index] }',
    arguments: [{ value: index }],
    objectGroup,
  })
  const objectId = element.result.objectId
  if (!objectId) return undefined
  const model = await cdp.send('DOM.getBoxModel', { objectId }).catch(() => undefined)
  const quad = model?.model.border
  if (!quad) return undefined
  const xs = [quad[0], quad[2], quad[4], quad[6]] as number[]
  const ys = [quad[1], quad[3], quad[5], quad[7]] as number[]
  const x = Math.min(...xs)
  const y = Math.min(...ys)
  const box = { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y }
  return box.width > 0 && box.height > 0 ? box : undefined
}

interface Candidates {
  elements: Element[]
  /** Per element: its value or text to check. Null: too many. */
  texts: string[] | null
}

/** Runs in the frame's isolated world: every field with a value and every element holding text, open shadow roots included. */
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
