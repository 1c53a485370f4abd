import { setTimeout as sleep } from 'node:timers/promises'

export interface UntilOptions {
  /** What is awaited, for the failure message ("the run to end"). */
  what?: string
  /** Give up after this long; below vitest's test timeout so this message, not vitest's, explains. */
  timeoutMs?: number
}

/**
 * Waits until `check` answers something truthy and returns it, polling every
 * 10 ms. Tests wait for states, never for durations: the timeout only turns a
 * hang into a failure that says what never happened.
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { what, timeoutMs = 20_000 }: UntilOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (performance.now() > deadline) {
      throw new Error(`Waited ${timeoutMs} ms for ${what ?? `\`${String(check)}\``}, in vain.`)
    }
    await sleep(10)
  }
}
