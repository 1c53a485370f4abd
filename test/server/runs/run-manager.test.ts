import { MockLanguageModelV4 } from 'ai/test'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import type { RunOptions, RunSummary } from '../../../src/agent/run/run-options.ts'
import { type AgentEvent, stampEvent } from '../../../src/events/events.ts'
import { silentLogger } from '../../../src/log.ts'
import { RunManager, TooManyRunsError } from '../../../src/server/runs/run-manager.ts'
import { MemoryRunStore } from '../../../src/store/memory-store.ts'
import { ownerHeartbeatMs, type RecordedOwner } from '../../../src/store/owner.ts'
import type { NewRun } from '../../../src/store/run-store.ts'

// Fake timers: the lease is renewed when the test says so, and the timers left can be counted.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
})
afterEach(() => {
  vi.useRealTimers()
})

/** A run that starts, then waits for its abort and ends with user_abort. */
async function* waitingRun(options: RunOptions): AsyncGenerator<AgentEvent, RunSummary> {
  const runId = options.runId ?? 'run_x'
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  yield stampEvent(
    { type: 'run_started', task: options.task ?? '', model: 'm/m', maxTurns: 5 },
    runId,
    0,
    new Date(),
  )
  await new Promise((resolve) => {
    if (options.signal?.aborted) resolve(undefined)
    options.signal?.addEventListener('abort', resolve, { once: true })
  })
  const result = { success: false, text: 'Aborted.' }
  yield stampEvent(
    { type: 'done', reason: 'user_abort', result, usage, steps: 0, durationMs: 0 },
    runId,
    1,
    new Date(),
  )
  return { runId, reason: 'user_abort', result, usage, costUsd: null, steps: 0, durationMs: 0 }
}

test('a live run renews its lease while it runs; the heartbeat stops with the last run', async () => {
  const store = new MemoryRunStore()
  const manager = new RunManager({
    store,
    runAgent: waitingRun,
    resolveModel: () => ({ name: 'm/m', provider: 'm', modelId: 'm', model: new MockLanguageModelV4() }),
    browser: null,
    maxRuns: 2,
    defaultMaxTurns: 5,
    log: silentLogger(),
  })
  const seen: string[] = []
  const seenAt = async () => {
    await store.markInterruptedRuns({
      at: new Date(),
      isOwnerGone: (owner: RecordedOwner) => {
        seen.push(owner.seenAt)
        return false
      },
    })
    return seen.at(-1)
  }

  const id = await manager.start({ task: 'wait' })
  const run = manager.get(id)
  const first = await seenAt()
  vi.advanceTimersByTime(ownerHeartbeatMs)
  await Promise.resolve()
  const renewed = await seenAt()
  expect(Date.parse(renewed ?? '')).toBe(Date.parse(first ?? '') + ownerHeartbeatMs)
  expect(vi.getTimerCount()).toBe(1)

  expect(await manager.abort(id)).toMatchObject({ status: 'stopped' })
  await run?.finished
  expect(vi.getTimerCount()).toBe(0)
})

/** A store whose first createRun fails, as a database that is briefly unreachable would. */
class FlakyStore extends MemoryRunStore {
  #failures = 1
  override async createRun(run: NewRun): Promise<void> {
    if (this.#failures-- > 0) throw new Error('The database is unreachable.')
    return super.createRun(run)
  }
}

test('a run the store could not take gives its slot back; a live run holds it until it ends', async () => {
  const manager = new RunManager({
    store: new FlakyStore(),
    runAgent: waitingRun,
    resolveModel: () => ({ name: 'm/m', provider: 'm', modelId: 'm', model: new MockLanguageModelV4() }),
    browser: null,
    maxRuns: 1,
    defaultMaxTurns: 5,
    log: silentLogger(),
  })

  await expect(manager.start({ task: 'not stored' })).rejects.toThrow('The database is unreachable.')
  const id = await manager.start({ task: 'holds the only slot' })
  await expect(manager.start({ task: 'one too many' })).rejects.toBeInstanceOf(TooManyRunsError)

  await manager.abort(id)
  const next = await manager.start({ task: 'the slot is free again' })
  expect(manager.get(next)).toBeDefined()
  await manager.shutdown()
})
