import { AbortError } from '../tool.ts'

export class DeadlineError extends Error {
  override name = 'DeadlineError'
}

/**
 * Settles with `promise`, or rejects with DeadlineError after `ms`, or with
 * AbortError as soon as `signal` aborts; clears its timer and listener either
 * way. The abandoned promise gets a handler so its late rejection is ignored.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  signal: AbortSignal,
  what = 'operation',
): Promise<T> {
  promise.catch(() => {})
  if (signal.aborted) return Promise.reject(new AbortError())
  return new Promise<T>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
    const onAbort = () => {
      finish()
      reject(new AbortError())
    }
    const timer = setTimeout(() => {
      finish()
      reject(new DeadlineError(`The ${what} did not finish within ${ms} ms.`))
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        finish()
        resolve(value)
      },
      (error: unknown) => {
        finish()
        reject(error)
      },
    )
  })
}

/** Milliseconds left until `deadline` (a `performance.now()` value), never negative. */
export function remaining(deadline: number): number {
  return Math.max(0, deadline - performance.now())
}

/**
 * Whether `promise` settles (either way) within `ms`. For waits that must not
 * hang shutdown or cleanup on a promise that never settles.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  try {
    await withDeadline(promise, ms, new AbortController().signal)
    return true
  } catch (error) {
    return !(error instanceof DeadlineError)
  }
}
