// The same TodoMVC flow run twice, side by side: once by a model (a scripted model behind the
// real OpenAI provider, answering after a fixed 800 ms per call in place of real latency), once
// as a replay of that run's recording, without a model, against a fresh copy of the app.
// Prints steps, model calls, tokens and wall time of each; target: the replay at ≤ 25% of the
// model run's time, with zero model calls.
// Run: node bench/replay.bench.ts  (or npm run bench -- replay)
import { runAgent } from '../src/agent/loop.ts'
import type { RunOptions } from '../src/agent/run/run-options.ts'
import { createBrowserPool } from '../src/browser/launch/launcher.ts'
import type { AgentEvent } from '../src/events/events.ts'
import { resolveModel } from '../src/model/resolve.ts'
import { recordingOf } from '../src/recording/from-events.ts'
import { startFakeOpenAI } from '../test/support/models/fake-openai.ts'
import { latestView, serveTodoApp, todoTask, todoTurn } from '../test/support/todo-flow.ts'

const modelLatencyMs = 800

interface Figures {
  label: string
  steps: number
  modelCalls: number
  tokens: number
  wallMs: number
  outcome: string
}

async function measure(
  label: string,
  options: RunOptions,
  requests: () => number,
): Promise<{ figures: Figures; events: AgentEvent[] }> {
  const before = requests()
  const started = performance.now()
  const events: AgentEvent[] = []
  for await (const event of runAgent(options)) events.push(event)
  const wallMs = performance.now() - started
  const done = events.at(-1)
  if (done?.type !== 'done') throw new Error(`${label}: the run did not end with done`)
  return {
    events,
    figures: {
      label,
      steps: done.steps,
      modelCalls: requests() - before,
      tokens: done.usage.totalTokens,
      wallMs,
      outcome: `${done.reason}${done.result.success ? '' : ' (failed)'}`,
    },
  }
}

const fake = await startFakeOpenAI({
  fallback: (request) => todoTurn(latestView(request), 'Buy milk', modelLatencyMs),
})
const pool = createBrowserPool()
const model = resolveModel('openai/bench-model', { baseUrl: fake.baseUrl, apiKey: 'bench' })
try {
  // A first run warms Chromium up, so neither side pays for its start.
  const warm = await serveTodoApp('original')
  for await (const _ of runAgent({
    task: 'warm up',
    startUrl: warm.appUrl,
    model: model.model,
    browser: pool.newSession,
    maxTurns: 1,
  })) {
    // Only the browser start matters here.
  }
  await warm.close()

  const first = await serveTodoApp('original')
  const modelRun = await measure(
    'model run',
    {
      task: todoTask,
      variables: { todo: 'Buy milk' },
      startUrl: first.appUrl,
      model: model.model,
      modelName: model.name,
      browser: pool.newSession,
    },
    () => fake.requests.length,
  )
  await first.close()

  const fresh = await serveTodoApp('original')
  const replay = await measure(
    'replay',
    { replay: recordingOf(modelRun.events), startUrl: fresh.appUrl, browser: pool.newSession },
    () => fake.requests.length,
  )
  await fresh.close()

  const rows = [modelRun.figures, replay.figures]
  console.log(
    `TodoMVC (vanillajs): add two todos, complete one, clear completed; model latency ${modelLatencyMs} ms per call\n`,
  )
  console.log(
    `${'run'.padEnd(10)} ${'steps'.padStart(5)} ${'model calls'.padStart(11)} ${'tokens'.padStart(7)} ${'wall time'.padStart(10)}  outcome`,
  )
  for (const row of rows)
    console.log(
      `${row.label.padEnd(10)} ${String(row.steps).padStart(5)} ${String(row.modelCalls).padStart(11)} ${String(row.tokens).padStart(7)} ${`${(row.wallMs / 1000).toFixed(2)} s`.padStart(10)}  ${row.outcome}`,
    )
  const share = replay.figures.wallMs / modelRun.figures.wallMs
  const met = share <= 0.25 && replay.figures.modelCalls === 0
  console.log(
    `\nreplay / model run wall time: ${(share * 100).toFixed(1)}% (target ≤ 25% with zero model calls: ${met ? 'met' : 'NOT met'})`,
  )
} finally {
  await pool.close()
  await fake.close()
}
