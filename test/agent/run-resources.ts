import { getEventListeners } from 'node:events'

/**
 * Watches what one run leaves behind, instead of counting the whole process's
 * handles: the timers created while the watch is on that neither fired nor
 * were cleared, and the listeners still registered on the caller's signal.
 * setTimeout and clearTimeout are wrapped from `watchRun()` until `stop()`;
 * call `stop()` in a finally (or afterEach) so no other test sees the wrappers.
 */
export function watchRun(callerSignal: AbortSignal) {
  const realSetTimeout = globalThis.setTimeout
  const realClearTimeout = globalThis.clearTimeout
  const pending = new Set<unknown>()

  const wrappedSetTimeout = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = realSetTimeout(
      (...callbackArgs: unknown[]) => {
        pending.delete(handle)
        callback(...callbackArgs)
      },
      ms,
      ...args,
    )
    pending.add(handle)
    return handle
  }
  const wrappedClearTimeout = (handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle)
    realClearTimeout(handle)
  }
  // The wrappers keep setTimeout's behaviour; only its static members (promisify) are not carried over.
  globalThis.setTimeout = wrappedSetTimeout as typeof setTimeout
  globalThis.clearTimeout = wrappedClearTimeout as typeof clearTimeout

  return {
    /** Timers the run started and left running. */
    pendingTimers: () => pending.size,
    /** Abort listeners still on the caller's signal. */
    callerListeners: () => getEventListeners(callerSignal, 'abort').length,
    stop() {
      globalThis.setTimeout = realSetTimeout
      globalThis.clearTimeout = realClearTimeout
    },
  }
}
