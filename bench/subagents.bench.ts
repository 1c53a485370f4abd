// Sub-agents: wall time of 3 children in parallel against the same 3 tasks in sequence, each
// dispatched by one parent run. The model is scripted with a fixed latency per call (standing in
// for a provider's), so the figure shows what running children at once saves, not model speed.
// Run: node bench/subagents.bench.ts  (or npm run bench -- subagents)
import { performance } from 'node:perf_hooks'
import { z } from 'zod'
import { runAgent } from '../src/agent/loop.ts'
import type { RunOptions } from '../src/agent/run/run-options.ts'
import type { BrowserSessionFactory } from '../src/browser/browser-session.ts'
import { defineTool } from '../src/tool.ts'
import { fakeBrowser } from '../test/support/fake-browser.ts'
import { agentOutput, type ScriptedResponse } from '../test/support/models/scripted-model.ts'
import { dispatch, finish, routedModel, sawChildren } from '../test/support/sub-agents.ts'

const rounds = Number(process.env.BENCH_RUNS ?? 5)
/** Latency of one model call, in ms. */
const callMs = Number(process.env.BENCH_CALL_MS ?? 300)
/** Steps each child takes: notes, then done. */
const childSteps = 3
const tasks = ['Price on shop A', 'Price on shop B', 'Price on shop C']

const noteTool = defineTool({
  name: 'note',
  description: 'Write a note.',
  input: z.object({ text: z.string() }),
  async execute(input) {
    return { ok: true, text: `Noted: ${input.text}` }
  },
})

/**
 * One call's response, its latency spread over its parts: the output goes as one delta, so a
 * call has 6 stream parts (start, input start, delta, input end, call, finish).
 */
function withLatency(response: ScriptedResponse): ScriptedResponse {
  return { ...response, chunkSize: 1_000_000, delayMs: callMs / 6 }
}

function model(parallel: boolean) {
  const steps = new Map<string, number>()
  return routedModel((task, prompt) => {
    if (!tasks.includes(task)) {
      return withLatency(
        sawChildren(prompt)
          ? finish('compared')
          : dispatch(
              tasks.map((t) => ({ task: t })),
              parallel,
            ),
      )
    }
    const step = (steps.get(task) ?? 0) + 1
    steps.set(task, step)
    return withLatency(
      step < childSteps
        ? { output: agentOutput({ note: { text: `step ${step}` } }) }
        : finish(`${task}: $10`),
    )
  })
}

/** Each child gets a fresh (fake) browser session, as a pool would give it a context. */
const browser: BrowserSessionFactory = async () => fakeBrowser()

async function once(parallel: boolean): Promise<{ runMs: number; dispatchMs: number }> {
  const options: RunOptions = {
    task: 'Compare the price on three shops',
    model: model(parallel),
    browser,
    stuck: false,
    subAgents: { max: 3 },
    tools: { add: [noteTool] },
  }
  const started = performance.now()
  let dispatchMs = Number.NaN
  let done = false
  for await (const event of runAgent(options)) {
    if (
      event.type === 'tool_call_result' &&
      event.parentRunId === undefined &&
      event.result.includes('sub-agents')
    )
      dispatchMs = event.durationMs
    if (event.type === 'done' && event.parentRunId === undefined) {
      done = event.reason === 'model_stop' && event.result.success
      if (!done) throw new Error(`the run ended ${event.reason}: ${event.result.text}`)
    }
  }
  return { runMs: performance.now() - started, dispatchMs }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const results = {
  parallel: [] as { runMs: number; dispatchMs: number }[],
  sequence: [] as { runMs: number; dispatchMs: number }[],
}
await once(true) // warm-up: module loading and JIT
for (let round = 0; round < rounds; round++) {
  results.parallel.push(await once(true))
  results.sequence.push(await once(false))
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(9)
console.log(
  `3 children × ${childSteps} steps, ${callMs} ms per model call (the parent: 2 calls); median of ${rounds} rounds`,
)
console.log(`${''.padEnd(22)}${'parallel'.padStart(9)}  ${'sequence'.padStart(9)}  speed-up`)
for (const [label, key] of [
  ['dispatch (children)', 'dispatchMs'],
  ['whole parent run', 'runMs'],
] as const) {
  const parallel = median(results.parallel.map((result) => result[key]))
  const sequence = median(results.sequence.map((result) => result[key]))
  console.log(`${label.padEnd(22)}${fmt(parallel)}  ${fmt(sequence)}  ${(sequence / parallel).toFixed(2)}×`)
}

/** ms from the parent's abort to its `done`, with 3 children each waiting on a model that never answers. */
async function abortLatency(): Promise<number> {
  const controller = new AbortController()
  const hanging = routedModel((task) =>
    tasks.includes(task)
      ? { hang: true, output: agentOutput({ note: { text: 'x' } }) }
      : dispatch(tasks.map((t) => ({ task: t }))),
  )
  let abortedAt = 0
  let childrenWaiting = 0
  let latency = Number.NaN
  for await (const event of runAgent({
    task: 'Compare the price on three shops',
    model: hanging,
    browser,
    stuck: false,
    subAgents: { max: 3 },
    tools: { add: [noteTool] },
    signal: controller.signal,
  })) {
    if (event.type === 'step_started' && event.parentRunId !== undefined && ++childrenWaiting === 3) {
      abortedAt = performance.now()
      controller.abort()
    }
    if (event.type === 'done' && event.parentRunId === undefined) latency = performance.now() - abortedAt
  }
  return latency
}

const latencies: number[] = []
for (let round = 0; round < rounds * 4; round++) latencies.push(await abortLatency())
console.log(
  `abort mid-dispatch → parent done (every child ended first): median ${median(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} runs`,
)
