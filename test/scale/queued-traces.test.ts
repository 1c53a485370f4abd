import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postRun, runIdOf } from '../server/support.ts'
import { doneTurn, type FakeOpenAI, scriptedTurns, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { attribute, type OtlpReceiver, startOtlpReceiver } from '../telemetry/otlp-receiver.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// A run queued on one server (SEXTANT_QUEUE, its only slot taken) and started by another keeps the
// caller's traceparent through the queue: its trace, exported by the server that ran it, is the caller's.

const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
let fake: FakeOpenAI
let receiver: OtlpReceiver
const saved = { ...process.env }
const servers: ClusterServer[] = []

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: turns.fallback })
  receiver = await startOtlpReceiver()
  Object.assign(process.env, receiver.env)
})

afterAll(async () => {
  for (const server of servers) await server.close()
  await fake?.close()
  await receiver?.close()
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
})

/** A server of the fleet, its traces exported as `service` (each server reads OTEL_* as it starts). */
async function fleetServer(database: string, service: string): Promise<ClusterServer> {
  process.env.OTEL_SERVICE_NAME = service
  const server = await startClusterServer(database, fake, { queue: true, maxRuns: 1 })
  servers.push(server)
  return server
}

describe.skipIf(!hasPostgres)('traces through the queue', () => {
  test("a run queued on a full server and run by another is traced inside the caller's trace", async () => {
    const database = await createTestDatabase('queued_traces')
    const full = await fleetServer(database, 'sextant-full')
    // Its one slot is taken by a run whose model never answers, until the servers close.
    const blocking = turns.script('Wait for ever.', doneTurn('Never.', true, { hang: true }))
    const blocker = await postRun(full.url, { task: blocking })
    const blockerId = runIdOf(blocker)
    await until(() => full.logs.some((line) => line.msg === 'run starting' && line.runId === blockerId), {
      what: 'the blocking run started on the first server',
    })
    const free = await fleetServer(database, 'sextant-free')

    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737'
    const callerSpan = '10f067aa0ba902b8'
    const response = await postRun(
      full.url,
      { task: turns.script('Queued with a trace.', doneTurn('Done.')) },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    )
    expect(response.status).toBe(200)
    const runId = runIdOf(response)
    await response.text()

    const run = await until(
      () =>
        receiver.spans.find(
          (span) => span.name === 'sextant.run' && attribute(span, 'sextant.run_id') === runId,
        ),
      { what: "the queued run's span" },
    )
    expect(free.logs.some((line) => line.msg === 'run starting' && line.runId === runId)).toBe(true)
    expect(run.service).toBe('sextant-free')
    expect(run.traceId).toBe(traceId)
    expect(run.parentSpanId).toBe(callerSpan)
    const step = await until(
      () => receiver.spans.find((span) => span.name === 'sextant.step 1' && span.parentSpanId === run.spanId),
      { what: "the queued run's step" },
    )
    expect(step.traceId).toBe(traceId)
  })
})
