import { pageName } from '../view/page-name.ts'

/**
 * What an action sets off late, as the page's own scripts see it: the short
 * timers its event handlers set (a menu's open delay, a debounce) and the CSS
 * transitions and animations it started. The settle waits for them within its
 * cap (page-watch.ts); a page's steady tickers (an interval, a timer re-armed
 * from its own callback, an endless animation, a carousel's slide) are not the
 * action's and are never waited for.
 *
 * Everything here runs in the page and must not refer to anything outside itself.
 */

/** The timer hook as the page holds it, under a symbol of its window. */
export interface LateTimers {
  /** Starts counting the timers events set, from now; returns what stops it. */
  arm(): () => void
  /** The latest time (performance.now()) a counted timer still pending falls due, up to `until`; -Infinity if none. */
  pendingUntil(until: number): number
  /** When a counted timer last ran its callback (performance.now(); -Infinity before any). */
  lastFired(): number
  /** Called after each counted timer's callback ran. */
  onFired(listener: () => void): () => void
  /** The page's own setTimeout and clearTimeout, as they were before the hook: the watcher's timers are not counted. */
  setTimeout: typeof setTimeout
  clearTimeout: typeof clearTimeout
}

/** Longest delay of a timer the settle may wait for: a menu's open delay, a debounce (about 1 s). */
const lateTimerMaxMs = 1000

/**
 * Runs in the page: wraps `setTimeout` and `clearTimeout` once per document
 * (an init script runs it before the page's scripts, so libraries that keep
 * their own reference, as lodash's debounce does, get the wrapper) and returns
 * the hook. Unarmed, a timer costs one check. Armed, a timer counts when it is
 * set while a trusted input event is dispatched (`window.event`, which
 * handlers' microtasks still see), with a delay up to `maxMs`, or from a
 * counted timer's callback, a few deep (a debounce re-armed for the time
 * left). A timer set from an uncounted timer's callback (a ticker re-arming
 * itself) or by `setInterval` never counts.
 */
export function lateTimersInPage(maxMs: number, name: string): LateTimers {
  const key = Symbol.for(name)
  const held = (window as unknown as Record<symbol, LateTimers | undefined>)[key]
  if (held) return held
  const original = window.setTimeout.bind(window)
  const originalClear = window.clearTimeout.bind(window)
  const inputEvent =
    /^(pointer|mouse|key|touch|drag|focus|composition)|^(click|dblclick|contextmenu|input|beforeinput|change|wheel|drop|blur|submit|select)$/
  const maxDepth = 5
  const pending = new Map<number, number>()
  const listeners = new Set<() => void>()
  let armed = 0
  let depth = 0
  let fired = Number.NEGATIVE_INFINITY
  const counts = (delay: number): boolean => {
    if (armed === 0 || !(delay <= maxMs)) return false
    if (depth > 0) return depth < maxDepth
    const event = (window as { event?: Event }).event
    return event?.isTrusted === true && inputEvent.test(event.type)
  }
  const hooked = (handler: TimerHandler, delay?: number, ...args: unknown[]): number => {
    const ms = Number(delay) || 0
    if (typeof handler !== 'function' || !counts(ms)) return original(handler, delay, ...args)
    const level = depth + 1
    const id: number = original(() => {
      pending.delete(id)
      depth = level
      try {
        Reflect.apply(handler, window, args)
      } finally {
        depth = 0
        fired = performance.now()
        for (const listener of listeners) listener()
      }
    }, delay)
    pending.set(id, performance.now() + ms)
    return id
  }
  const hookedClear = (id?: number): void => {
    if (id !== undefined) pending.delete(id)
    originalClear(id)
  }
  window.setTimeout = hooked as typeof setTimeout
  window.clearTimeout = hookedClear as typeof clearTimeout
  const hook: LateTimers = {
    arm() {
      armed++
      let on = true
      return () => {
        if (on) armed--
        on = false
        if (armed === 0) pending.clear()
      }
    },
    pendingUntil(until) {
      let latest = Number.NEGATIVE_INFINITY
      for (const due of pending.values()) if (due <= until && due > latest) latest = due
      return latest
    },
    lastFired: () => fired,
    onFired(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    setTimeout: original as typeof setTimeout,
    clearTimeout: originalClear as typeof clearTimeout,
  }
  Object.defineProperty(window, key, { value: hook })
  return hook
}

/** An expression that installs the hook in a document (once) and gives it. */
export const lateTimersSource = `(${lateTimersInPage})(${lateTimerMaxMs}, ${JSON.stringify(pageName())})`

/** The hook installed in every document a session's pages load, before their own scripts. */
export const lateTimersScript = `${lateTimersSource};`

/**
 * Runs in the page: when the CSS transitions and animations that started
 * between `from` and `to` (performance.now() times: the action's input, and
 * the window it set things off in) end, the latest of them ending by `until`;
 * -Infinity when none runs. An endless animation (a spinner) never ends and
 * is not counted, nor one that started before the action (a steady ticker's).
 */
export function animationsEndInPage(from: number, to: number, until: number): number {
  let latest = Number.NEGATIVE_INFINITY
  if (typeof document.getAnimations !== 'function') return latest
  // What moves, shows or hides content; a hover's colour or shadow fading changes nothing the view says.
  const moves =
    /^(opacity|transform|translate|scale|rotate|visibility|display|(min-|max-)?(height|width)|top|left|right|bottom|inset.*|margin.*|clip-path|grid-template.*|all)$/
  const movesSomething = (animation: Animation): boolean => {
    const property = (animation as Animation & { transitionProperty?: string }).transitionProperty
    if (property !== undefined) return moves.test(property)
    const effect = animation.effect as KeyframeEffect | null
    const frames = effect?.getKeyframes?.() ?? []
    return frames.some((frame) =>
      Object.keys(frame).some((name) => moves.test(name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))),
    )
  }
  const now = performance.now()
  for (const animation of document.getAnimations()) {
    if (animation.playState !== 'running' || !movesSomething(animation)) continue
    const timing = animation.effect?.getComputedTiming()
    const rate = animation.playbackRate
    if (!timing || !rate || typeof timing.endTime !== 'number' || !Number.isFinite(timing.endTime)) continue
    // A pending animation has no start time yet: it starts at the next frame.
    const started = typeof animation.startTime === 'number' ? animation.startTime : now
    if (started < from || started > to) continue
    const end = started + timing.endTime / Math.abs(rate)
    if (end <= until && end > latest) latest = end
  }
  return latest
}
