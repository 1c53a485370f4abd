import { expect, test } from 'vitest'
import { watchRun } from './run-resources.ts'

// The watch behind the "leaves nothing running" tests counts the run's timers, not the worker's: a file
// that ran earlier in the same worker may still have something going that sets timers.

test('a timer set by what was going before the watch is not counted; one set from the test is', async () => {
  const earlier = setInterval(() => setTimeout(() => {}, 60_000).unref(), 5)
  const watch = watchRun(new AbortController().signal)
  try {
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(watch.pendingTimers()).toBe(0)
    const mine = setTimeout(() => {}, 60_000)
    expect(watch.pendingTimers()).toBe(1)
    clearTimeout(mine)
    expect(watch.pendingTimers()).toBe(0)
  } finally {
    watch.stop()
    clearInterval(earlier)
  }
})
