/**
 * What a listener says of the element it is on: the words the page scan
 * reads (see `listener-lookup.ts` for how the browser is asked).
 */

export interface Listener {
  type: string
  backendNodeId?: number
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

/** The words of a window's listeners the scanner reads: its `move` and `release`. */
export function windowWordsOf(listeners: Listener[]): string[] {
  return [...new Set(listeners.flatMap((listener) => kindOf[listener.type] ?? []))].filter((word) =>
    windowKinds.has(word),
  )
}
