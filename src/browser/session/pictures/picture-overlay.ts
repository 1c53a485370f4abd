import type { CDPSession } from 'playwright-core'
import { withDeadline } from '../../../util/deadline.ts'
import { pageName } from '../../view/page-name.ts'
import type { MaskBox } from './secret-search.ts'

/**
 * The covers (and ref labels) put over the page while its picture is taken.
 * They are drawn, checked and taken down from an isolated world of the main
 * frame, made for this picture: the page shares the DOM with that world but
 * not its JavaScript, so a page that redefines `querySelector`, `remove` or
 * `getBoundingClientRect` can neither fake the check that its secret's cover
 * still stood when the picture was taken, nor keep the covers on its page.
 * The world keeps the layer it drew in its own global, which the page cannot
 * reach or replace.
 */

/** Marks the overlay's nodes, so any left behind (a picture cut short) can be found and removed. */
export const overlayAttribute = pageName('data-')
/** Bound on putting up, checking or taking down the overlay. */
const overlayDeadlineMs = 2000

export interface OverlayContent {
  masks: readonly MaskBox[]
  labels: readonly { ref: string; box: { x: number; y: number; width: number; height: number } }[]
  color: string
}

/** What the overlay's world keeps in its own global. */
interface OverlayWorldGlobal {
  sextantOverlay?: Element
}

export class PictureOverlay {
  readonly #cdp: CDPSession
  readonly #world: number
  readonly #masks: readonly MaskBox[]

  private constructor(cdp: CDPSession, world: number, masks: readonly MaskBox[]) {
    this.#cdp = cdp
    this.#world = world
    this.#masks = masks
  }

  /** Puts the overlay up over the page's main frame; throws when it cannot (then there is no picture). */
  static async draw(cdp: CDPSession, content: OverlayContent, signal: AbortSignal): Promise<PictureOverlay> {
    const world = await withDeadline(
      (async () => {
        const { frameTree } = await cdp.send('Page.getFrameTree')
        const created = await cdp.send('Page.createIsolatedWorld', {
          frameId: frameTree.frame.id,
          worldName: 'sextant-picture-overlay',
        })
        return created.executionContextId
      })(),
      overlayDeadlineMs,
      signal,
      'screenshot masking',
    )
    const overlay = new PictureOverlay(cdp, world, content.masks)
    await withDeadline(
      overlay.#call(drawOverlay, { ...content, attribute: overlayAttribute }),
      overlayDeadlineMs,
      signal,
      'screenshot masking',
    )
    return overlay
  }

  /** Whether every cover still stands where it was drawn (true when there are none). */
  async standing(signal: AbortSignal): Promise<boolean> {
    if (this.#masks.length === 0) return true
    return withDeadline(
      this.#call(coversStanding, this.#masks),
      overlayDeadlineMs,
      signal,
      'screenshot masking',
    )
  }

  /** Takes the overlay down; never throws (a document that went away took it along). */
  async remove(): Promise<void> {
    await withDeadline(
      this.#call(removeOverlay, overlayAttribute),
      overlayDeadlineMs,
      new AbortController().signal,
      'screenshot overlay removal',
    ).catch(() => {})
  }

  async #call<Arg, Result>(fn: (arg: Arg) => Result, arg: Arg): Promise<Result> {
    const { result, exceptionDetails } = await this.#cdp.send('Runtime.callFunctionOn', {
      functionDeclaration: fn.toString(),
      executionContextId: this.#world,
      arguments: [{ value: arg }],
      returnByValue: true,
    })
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text)
    return result.value as Result
  }
}

/**
 * Runs in the overlay's world: one layer in the top layer (a manual popover, above the
 * page's own dialogs and fixed elements), with a blank box over each mask and
 * the ref labels. Styled inline and `!important`, which no style sheet of the
 * page outranks. Answers how many covers it drew.
 */
function drawOverlay({
  attribute,
  masks,
  labels,
  color,
}: {
  attribute: string
  masks: readonly MaskBox[]
  labels: readonly { ref: string; box: { x: number; y: number; width: number; height: number } }[]
  color: string
}): number {
  if (masks.length === 0 && labels.length === 0) return 0
  const strict = (style: string) =>
    style
      .split(';')
      .filter((rule) => rule.trim())
      .map((rule) => `${rule} !important;`)
      .join('')
  const fixed =
    'position:fixed;pointer-events:none;margin:0;padding:0;box-sizing:border-box;display:block;visibility:visible;opacity:1;transform:none;filter:none;clip-path:none;'
  const layer = document.createElement('div')
  layer.setAttribute(attribute, '')
  layer.setAttribute('aria-hidden', 'true')
  layer.setAttribute('popover', 'manual')
  layer.style.cssText = strict(
    `${fixed}inset:0;width:100vw;height:100vh;max-width:none;max-height:none;border:0;background:transparent;overflow:visible;z-index:2147483647`,
  )
  for (const box of masks) {
    const cover = document.createElement('div')
    cover.style.cssText = strict(
      `${fixed}left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px;background:#9aa0a6;border:0`,
    )
    layer.append(cover)
  }
  for (const { ref, box } of labels) {
    const left = box.x * innerWidth
    const top = box.y * innerHeight
    const outline = document.createElement('div')
    outline.style.cssText = `${fixed}left:${left}px;top:${top}px;width:${box.width * innerWidth}px;height:${box.height * innerHeight}px;border:2px solid ${color};`
    const tag = document.createElement('div')
    tag.textContent = ref
    tag.style.cssText = `${fixed}left:${left}px;top:${Math.max(0, top - 14)}px;padding:0 3px;font:bold 11px/14px monospace;color:#fff;background:${color};`
    layer.append(outline, tag)
  }
  ;(globalThis as OverlayWorldGlobal).sextantOverlay = layer
  document.documentElement.append(layer)
  try {
    layer.showPopover()
  } catch {
    // Without the popover API the layer still sits on top by its z-index.
  }
  return masks.length
}

/** Runs in the overlay's world: whether every cover is still where it was drawn and shown. */
function coversStanding(masks: readonly MaskBox[]): boolean {
  const layer = (globalThis as OverlayWorldGlobal).sextantOverlay
  if (!layer?.isConnected) return false
  const covers = [...layer.children].slice(0, masks.length)
  if (covers.length !== masks.length) return false
  return covers.every((cover, index) => {
    const box = cover.getBoundingClientRect()
    const mask = masks[index]
    const style = getComputedStyle(cover)
    return (
      mask !== undefined &&
      Math.abs(box.x - mask.x) < 1 &&
      Math.abs(box.y - mask.y) < 1 &&
      Math.abs(box.width - mask.width) < 1 &&
      Math.abs(box.height - mask.height) < 1 &&
      style.visibility === 'visible' &&
      style.opacity === '1' &&
      getComputedStyle(layer).opacity === '1'
    )
  })
}

/** Runs in the overlay's world: removes the layer it drew, and any other left behind. */
function removeOverlay(attribute: string): void {
  const world = globalThis as OverlayWorldGlobal
  world.sextantOverlay?.remove()
  world.sextantOverlay = undefined
  for (const node of document.querySelectorAll(`[${attribute}]`)) node.remove()
}
