import { MockLanguageModelV4 } from 'ai/test'
import { expect, test } from 'vitest'
import { runAgent } from '../../../src/agent/loop.ts'
import { type AgentEvent, isLiveOnly } from '../../../src/events/events.ts'
import { silentLogger } from '../../../src/log.ts'
import { RunManager } from '../../../src/server/runs/run-manager.ts'
import { MemoryRunStore } from '../../../src/store/memory-store.ts'
import type { RunOwner } from '../../../src/store/owner.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { until } from '../../support/until.ts'

// Events and store writes never block a step: a run goes on while the store takes its time,
// and its events all land, in order, with `done` stored before the run counts as ended.

/** A store whose event writes hang until the test opens it. */
class SlowStore extends MemoryRunStore {
  readonly #open = Promise.withResolvers<void>()
  writesStarted = 0
  open(): void {
    this.#open.resolve()
  }
  override async appendEvents(events: readonly AgentEvent[], writer?: RunOwner): Promise<void> {
    this.writesStarted++
    await this.#open.promise
    return super.appendEvents(events, writer)
  }
}

test('a run steps to its end while the store has not written one event; then all land and the run ends', async () => {
  const store = new SlowStore()
  const seen: AgentEvent[] = []
  const model = scriptedModel([
    { output: agentOutput({ click: { ref: 'b1' } }) },
    { output: agentOutput({ click: { ref: 'b1' } }) },
    { output: agentOutput({ done: { text: 'Clicked twice.', success: true } }) },
  ])
  const manager = new RunManager({
    store,
    runAgent: (options) => runAgent({ ...options, model, browser: fakeBrowser(), stuck: false }),
    resolveModel: () => ({ name: 'm/m', provider: 'm', modelId: 'm', model: new MockLanguageModelV4() }),
    browser: null,
    maxRuns: 1,
    defaultMaxTurns: 5,
    log: silentLogger(),
    observe: (event) => seen.push(event),
  })
  const id = await manager.start({ task: 'click twice' })
  const run = manager.get(id)
  let ended = false
  void run?.finished.then(() => {
    ended = true
  })

  // Every step ran, and the run's `done` came out of runAgent, with the store still holding its first write.
  const done = await until(() => seen.find((event) => event.type === 'done'), { what: 'the run to end' })
  expect(done).toMatchObject({ reason: 'model_stop', steps: 3 })
  expect(store.writesStarted).toBe(1)
  expect(await store.events(id)).toEqual([])
  // Not ended while its `done` is unwritten.
  expect(ended).toBe(false)
  expect((await store.getRun(id))?.status).toBe('running')

  store.open()
  await run?.finished
  const stored = await store.events(id)
  expect(stored.map((event) => event.seq)).toEqual(
    seen.filter((event) => !isLiveOnly(event)).map((event) => event.seq),
  )
  expect(stored.at(-1)?.type).toBe('done')
  expect(await store.getRun(id)).toMatchObject({ status: 'completed', reason: 'model_stop' })
  await manager.shutdown()
})
