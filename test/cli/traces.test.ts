import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { doneTurn, type FakeOpenAI, promptText, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { attribute, type OtlpReceiver, startOtlpReceiver } from '../telemetry/otlp-receiver.ts'
import { startCli } from './support.ts'

// `sextant run` in its own process exports its run's trace when OTEL_* asks, inside the trace of the
// job that started it (TRACEPARENT), and flushes it before exiting, Ctrl-C included.

let fake: FakeOpenAI
let receiver: OtlpReceiver
const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-traces-'))

beforeAll(async () => {
  fake = await startFakeOpenAI({
    fallback: (request) =>
      promptText(request).includes('Wait for ever.')
        ? doneTurn('Never.', true, { hang: true })
        : doneTurn('All done.'),
  })
  receiver = await startOtlpReceiver()
})
afterAll(async () => {
  await fake?.close()
  await receiver?.close()
  rmSync(dir, { recursive: true, force: true })
})

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  SEXTANT_MODEL: 'fake/cli-model',
  SEXTANT_BASE_URL: fake.baseUrl,
  SEXTANT_DB: join(dir, 'cli.db'),
  SEXTANT_RUNS_DIR: join(dir, 'runs'),
  ...receiver.env,
  OTEL_SERVICE_NAME: 'sextant-cli',
  // No batch leaves on its own before the process ends: what arrives was flushed on the way out.
  OTEL_BSP_SCHEDULE_DELAY: '60000',
  ...extra,
})

/** The run span the receiver got for the run the CLI printed (--json). */
function runSpanOf(collector: OtlpReceiver, stdout: string) {
  const runId = /"runId":"(run_[^"]+)"/.exec(stdout)?.[1]
  return collector.spans.find(
    (span) =>
      span.name === 'sextant.run' && runId !== undefined && attribute(span, 'sextant.run_id') === runId,
  )
}

describe('sextant run, traced', () => {
  test("exports the run's trace under TRACEPARENT before it exits", async () => {
    const traceId = '9bf92f3577b34da6a3ce929d0e0e473b'
    const callerSpan = '50f067aa0ba902bc'
    const cli = startCli(
      ['run', 'Finish at once.', '--json'],
      env({ TRACEPARENT: `00-${traceId}-${callerSpan}-01` }),
    )
    expect(await cli.exited).toBe(0)
    // Exported by the time the process ended: no waiting for a batch here.
    const run = runSpanOf(receiver, cli.stdout())
    expect(run?.traceId).toBe(traceId)
    expect(run?.parentSpanId).toBe(callerSpan)
    expect(run?.service).toBe('sextant-cli')
    expect(attribute(run, 'sextant.reason')).toBe('model_stop')

    // The same run replayed from the store joins the trace --traceparent names.
    const replayTrace = '4bf92f3577b34da6a3ce929d0e0e4736'
    const runId = String(attribute(run, 'sextant.run_id'))
    const replay = startCli(
      ['replay', runId, '--json', '--traceparent', `00-${replayTrace}-${callerSpan}-01`],
      env(),
    )
    expect(await replay.exited, replay.stderr()).toBe(0)
    const replayed = runSpanOf(receiver, replay.stdout())
    expect(replayed?.traceId).toBe(replayTrace)
    expect(replayed?.parentSpanId).toBe(callerSpan)
  })

  test('a malformed --traceparent is a usage error naming it, for run and replay alike', async () => {
    for (const args of [
      ['run', 'Finish at once.', '--traceparent', 'not-a-traceparent'],
      ['replay', 'run_missing', '--traceparent', 'not-a-traceparent'],
    ]) {
      const cli = startCli(args, env())
      expect(await cli.exited).toBe(2)
      expect(cli.stderr()).toMatch(/traceparent/)
    }
  })

  test('Ctrl-C aborts the run and exits only once its trace is exported', async () => {
    // A slow collector: the process must wait for its answer, where Playwright's own Ctrl-C handler
    // would close the browser and exit 130 as soon as it could.
    let answered = false
    const slow = await startOtlpReceiver({
      beforeAnswer: async () => {
        await sleep(1500)
        answered = true
      },
    })
    onTestFinished(() => slow.close())
    const cli = startCli(['run', 'Wait for ever.', '--json'], env({ OTEL_EXPORTER_OTLP_ENDPOINT: slow.url }))
    await cli.waitFor('"type":"step_started"')
    await until(() => fake.requests.some((request) => promptText(request).includes('Wait for ever.')), {
      what: "the run's model call",
    })
    cli.child.kill('SIGINT')
    expect(await cli.exited).toBe(130)
    expect(answered).toBe(true)
    const run = runSpanOf(slow, cli.stdout())
    expect(attribute(run, 'sextant.reason')).toBe('user_abort')
  })
})
