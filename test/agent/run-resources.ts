import { AsyncLocalStorage } from 'node:async_hooks'
import { getEventListeners } from 'node:events'

/**
 * Watches what one run leaves behind, instead of counting the whole process's
 * handles: the timers created while the watch is on that neither fired nor
 * were cleared, and the listeners still registered on the caller's signal.
 * setTimeout and clearTimeout are wrapped from `watchRun()` until `stop()`;
 * call `stop()` in a finally (or afterEach) so no other test sees the wrappers.
 *
 * Only timers set from the calling test's own async flow count (an async context entered here): a worker runs
 * file after file, and what an earlier file left going (a keep-alive socket, a server's timer) may set timers
 * meanwhile that are not the run's.
 */
export function watchRun(callerSignal: AbortSignal) {
  const realSetTimeout = globalThis.setTimeout
  const realClearTimeout = globalThis.clearTimeout
  const pending = new Set<unknown>()
  const watched = new AsyncLocalStorage<true>()
  watched.enterWith(true)

  const wrappedSetTimeout = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = realSetTimeout(
      (...callbackArgs: unknown[]) => {
        pending.delete(handle)
        callback(...callbackArgs)
      },
      ms,
      ...args,
    )
    if (watched.getStore()) pending.add(handle)
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
      watched.disable()
    },
  }
}
