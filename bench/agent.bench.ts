// Abort latency per state, and the loop's own overhead per step with a zero-latency model.
// Run: node bench/agent.bench.ts  (or npm run bench -- agent)
import { performance } from 'node:perf_hooks'
import { streamText } from 'ai'
import { z } from 'zod'
import { runAgent } from '../src/agent/loop.ts'
import type { RunOptions } from '../src/agent/run/run-options.ts'
import { defineTool, sleep } from '../src/tool.ts'
import { fakeBrowser } from '../test/support/fake-browser.ts'
import { agentOutput, type ScriptedResponse, scriptedModel } from '../test/support/models/scripted-model.ts'

const runsPerState = Number(process.env.BENCH_RUNS ?? 200)

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/** Starts a run, aborts it once it is inside `state`, and returns ms from abort() to the done event. */
async function abortLatency(
  options: Omit<RunOptions, 'signal'>,
  trigger: string,
  settleMs: number,
): Promise<number> {
  const controller = new AbortController()
  let abortedAt = 0
  let latency = Number.NaN
  for await (const event of runAgent({ stuck: false, ...options, signal: controller.signal })) {
    if (event.type === trigger && abortedAt === 0) {
      setTimeout(() => {
        abortedAt = performance.now()
        controller.abort()
      }, settleMs)
    }
    if (event.type === 'done') {
      latency = performance.now() - abortedAt
      if (event.reason !== 'user_abort') throw new Error(`expected user_abort, got ${event.reason}`)
    }
  }
  return latency
}

const slowTool = defineTool({
  name: 'slow',
  description: 'A tool that takes long and honours the signal.',
  input: z.object({}),
  execute: (_input, ctx) =>
    new Promise((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
    ),
})

const scenarios: { state: string; make: () => Omit<RunOptions, 'signal'>; trigger: string }[] = [
  {
    state: 'thinking (observing)',
    trigger: 'run_started',
    make: () => ({
      task: 't',
      model: scriptedModel([]),
      browser: fakeBrowser({ observe: (signal) => sleep(200, signal) }),
    }),
  },
  {
    state: 'streaming',
    trigger: 'text_delta',
    make: () => ({
      task: 't',
      model: scriptedModel([{ output: agentOutput({ click: { ref: 'b1' } }), hang: true }]),
      browser: fakeBrowser(),
    }),
  },
  {
    state: 'executing (slow tool)',
    trigger: 'tool_call_start',
    make: () => ({
      task: 't',
      model: scriptedModel([{ output: agentOutput({ slow: {} }) }]),
      browser: null,
      tools: { add: [slowTool] },
    }),
  },
  {
    state: 'executing (wait)',
    trigger: 'tool_call_start',
    make: () => ({
      task: 't',
      model: scriptedModel([{ output: agentOutput({ wait: { seconds: 10 } }) }]),
      browser: null,
    }),
  },
  {
    state: 'confirming',
    trigger: 'confirmation_required',
    make: () => ({
      task: 't',
      model: scriptedModel([{ output: agentOutput({ execute_javascript: { script: '1' } }) }]),
      browser: fakeBrowser(),
      confirm: () => new Promise<boolean>(() => {}),
    }),
  },
]

console.log(`Abort latency: abort() → done event, ${runsPerState} runs per state (target p99 ≤ 100 ms)`)
console.log(
  `${'state'.padEnd(24)} ${'median ms'.padStart(10)} ${'p99 ms'.padStart(10)} ${'max ms'.padStart(10)}`,
)
for (const scenario of scenarios) {
  const samples: number[] = []
  for (let i = 0; i < runsPerState; i++)
    samples.push(await abortLatency(scenario.make(), scenario.trigger, 5))
  samples.sort((a, b) => a - b)
  console.log(
    `${scenario.state.padEnd(24)} ${percentile(samples, 50).toFixed(2).padStart(10)} ${percentile(samples, 99).toFixed(2).padStart(10)} ${(samples.at(-1) ?? Number.NaN).toFixed(2).padStart(10)}`,
  )
}

// Loop overhead: the same scripted responses consumed by streamText alone (baseline) and by the full loop.
const steps = Number(process.env.BENCH_STEPS ?? 300)
const script = (): ScriptedResponse[] => [
  ...Array.from({ length: steps - 1 }, () => ({
    output: agentOutput({ click: { ref: 'b1' } }, 'memory of the run'),
  })),
  { output: agentOutput({ done: { text: 'ok', success: true } }) },
]

async function baselineMs(): Promise<number> {
  const model = scriptedModel(script())
  const started = performance.now()
  for (let i = 0; i < steps; i++) {
    const result = streamText({ model, prompt: 'x', tools: {}, maxRetries: 0 })
    for await (const _part of result.stream) {
      // consume
    }
  }
  return performance.now() - started
}

async function loopMs(stuck: boolean): Promise<number> {
  const started = performance.now()
  let reason = ''
  for await (const event of runAgent({
    task: 't',
    model: scriptedModel(script()),
    browser: fakeBrowser(),
    maxTurns: steps,
    ...(stuck ? {} : { stuck: false as const }),
  })) {
    if (event.type === 'done') reason = event.reason
  }
  if (reason !== 'model_stop' && reason !== 'loop_detected') throw new Error(`unexpected end: ${reason}`)
  return performance.now() - started
}

await baselineMs() // warm-up
const baseline = await baselineMs()
const loop = await loopMs(false)
console.log(`\nLoop overhead per step, zero-latency model, ${steps} steps (same script, same run)`)
console.log(
  `${'streamText alone (baseline)'.padEnd(34)} ${(baseline / steps).toFixed(3).padStart(8)} ms/step`,
)
console.log(`${'runAgent, full loop'.padEnd(34)} ${(loop / steps).toFixed(3).padStart(8)} ms/step`)
console.log(`${'loop overhead'.padEnd(34)} ${((loop - baseline) / steps).toFixed(3).padStart(8)} ms/step`)
