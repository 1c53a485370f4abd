import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import type { SettledRun } from '../../../src/agent/replay/replay-setup.ts'
import type { RunOptions } from '../../../src/agent/run/run-options.ts'
import { notRunOptions, runOptionsFor } from '../../../src/agent/run/run-request.ts'
import {
  type RunRequest,
  type RunRequestField,
  runRequestFields,
} from '../../../src/agent/run/run-request-fields.ts'
import { runHelp } from '../../../src/cli/help.ts'
import { runCommandOptions, runRequestFlags } from '../../../src/cli/run-flags.ts'
import { SuiteTaskSchema } from '../../../src/eval/suite.ts'
import { silentLogger } from '../../../src/log.ts'
import { BrowserTaskInputSchema } from '../../../src/mcp/tool-inputs.ts'
import { recordingVersion } from '../../../src/recording/schema.ts'
import { createApp } from '../../../src/server/app.ts'
import { quietManager } from '../../server/support.ts'
import { until } from '../../support/until.ts'

// One run request, one adapter: every surface is a view of the schema, and a field one of them lacks
// has its reason written here. A field added to run-request-fields.ts fails this test on each surface
// until it reaches it (or its reason is written), and fails the adapter's test until it is mapped.

type Surface = 'http' | 'mcp' | 'eval' | 'cli'

/** Why a surface lacks a field. A reason for a field the surface has fails too: the table stays true. */
const gaps: Record<Surface, Partial<Record<RunRequestField, string>>> = {
  http: {},
  mcp: {
    replay: 'the replay_run tool takes it (runId or recording), not browser_task',
    variables:
      "the replay_run tool takes them; browser_task's task is written by the assistant itself, with nothing to fill in",
    secrets:
      "values in a tool call pass through the assistant's own model and transcript: they could not stay secret",
    traceparent:
      "the call's own trace context: params._meta.traceparent, or over HTTP the call's traceparent header (mcp/mcp-server.ts), never the assistant's arguments",
  },
  eval: {
    replay: 'a suite measures the model doing its tasks; a replay is checked with `sextant recording check`',
    model: 'an eval runs every task with each of its models (--model, `models` over HTTP), side by side',
    handover: 'no person watches an eval: its runs never get a handover desk',
    priority: 'an eval holds its own slots and is never queued',
    queueTimeoutMs: 'an eval holds its own slots and is never queued',
    blockPrivateNetworks:
      "a suite's fixtures are served on 127.0.0.1; the server's SEXTANT_BLOCK_PRIVATE still holds",
    vision: "the server's or CLI's SEXTANT_VISION sets it for a whole eval",
    subAgents: 'a task measures one agent; a suite of dispatching runs is not comparable run to run',
    traceparent:
      "a suite's tasks have no caller of their own: each run is a trace of its own, exported by the eval's process (OTEL_*)",
  },
  cli: {
    task: 'the positional argument',
    replay: '`sextant replay <file|runId>` is its own command',
    priority: 'the CLI runs at once, in its own process: there is no queue',
    queueTimeoutMs: 'the CLI runs at once, in its own process: there is no queue',
    blockPrivateNetworks: 'SEXTANT_BLOCK_PRIVATE sets it for the CLI',
    webhook:
      '`sextant run` ends with the run: its exit code and --json tell the job that started it how it ended',
  },
}

const fields = Object.keys(runRequestFields) as RunRequestField[]

async function httpBodyFields(): Promise<string[]> {
  const manager = quietManager()
  const app = createApp({ manager, log: silentLogger(), version: '0.0.0' })
  const document = (await (await app.request('/openapi.json')).json()) as {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
    >
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> }
  }
  const ref = document.paths['/v1/runs']?.post?.requestBody?.content['application/json']?.schema.$ref ?? ''
  return Object.keys(document.components.schemas[ref.split('/').pop() ?? '']?.properties ?? {})
}

function cliFields(): RunRequestField[] {
  return fields.filter((field) => {
    const flag = runRequestFlags[field]
    return flag !== undefined && flag in runCommandOptions && runHelp.includes(`--${flag}`)
  })
}

describe('the run request schema', () => {
  test('reaches every surface, or the surface says why not', async () => {
    const has: Record<Surface, readonly string[]> = {
      http: await httpBodyFields(),
      mcp: Object.keys(BrowserTaskInputSchema.shape),
      eval: Object.keys(SuiteTaskSchema.shape),
      cli: cliFields(),
    }
    const problems: string[] = []
    for (const surface of Object.keys(gaps) as Surface[]) {
      for (const field of fields) {
        const present = has[surface].includes(field)
        const reason = gaps[surface][field]
        if (!present && reason === undefined)
          problems.push(`${surface} lacks ${field}, with no reason written`)
        if (present && reason !== undefined)
          problems.push(`${surface} has ${field}, yet a reason says it lacks it`)
      }
    }
    expect(problems).toEqual([])
  })
})

/** A value for every field: a field added to the schema fails the typecheck here until it has one. */
const everyField: Required<RunRequest> = {
  task: 'Find the {{thing}}.',
  replay: { version: recordingVersion, task: 'Find the {{thing}}.', steps: [] },
  variables: { thing: 'price' },
  startUrl: 'https://example.com/',
  instructions: 'Prices are in euros.',
  output: { type: 'object' },
  maxTurns: 7,
  maxSessionTokens: 1000,
  maxCostUsd: 0.5,
  maxDurationMs: 60_000,
  allowedDomains: ['example.com'],
  profile: 'shop',
  handover: false,
  proxy: { server: 'http://proxy.test:8080' },
  browser: { locale: 'de-DE', timezoneId: 'Europe/Berlin' },
  artifacts: { trace: true, har: true },
  priority: 3,
  queueTimeoutMs: 5000,
  profileSave: 'always',
  model: 'openai/gpt-4.1-mini',
  blockPrivateNetworks: true,
  secrets: { password: 'hunter2' },
  vision: true,
  subAgents: { max: 2 },
  webhook: 'https://hooks.example.com/runs',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
}

describe('runOptionsFor', () => {
  const model = { name: 'openai/gpt-4.1-mini', model: new MockLanguageModelV4() }
  const defaults = { model, maxTurns: 40, vision: false, handover: () => ({}) as never }

  test('maps every field of the request but those it names as no run option', () => {
    const full = runOptionsFor(everyField, defaults)
    const unmapped = fields.filter((field) => {
      const { [field]: _left, ...without } = everyField
      return JSON.stringify(runOptionsFor(without, defaults)) === JSON.stringify(full)
    })
    expect(unmapped.sort()).toEqual(Object.keys(notRunOptions).sort())
  })

  test("fills what the request leaves out from the caller's defaults, and lets the request opt out of a person", () => {
    let desks = 0
    const options: RunOptions = runOptionsFor(
      { task: 't', profile: 'shop' },
      {
        model,
        maxTurns: 12,
        maxDurationMs: 9000,
        vision: true,
        handover: () => {
          desks++
          return {} as never
        },
      },
    )
    expect(options).toMatchObject({
      task: 't',
      modelName: model.name,
      maxTurns: 12,
      maxDurationMs: 9000,
      vision: true,
    })
    expect(options.profileSave).toBe('success')
    expect(desks).toBe(1)
    expect(
      runOptionsFor({ task: 't', handover: false }, { handover: () => ({}) as never }).handover,
    ).toBeUndefined()
  })

  test("keeps the server's artifacts when the request names none, without the video for a run with secrets", () => {
    const artifacts = { trace: true, video: true }
    expect(runOptionsFor({ task: 't' }, { artifacts }).artifacts).toEqual(artifacts)
    expect(runOptionsFor({ task: 't', artifacts: { har: true } }, { artifacts }).artifacts).toEqual({
      har: true,
    })
    expect(runOptionsFor({ task: 't', secrets: { pw: 'x' } }, { artifacts }).artifacts).toEqual({
      trace: true,
    })
  })

  test("gives a replay the caller's replay wait (SEXTANT_REPLAY_WAIT_MS), and a run that replays nothing none", () => {
    const recording = everyField.replay
    expect(runOptionsFor({ replay: recording }, { replayWaitMs: 1500 }).replayWaitMs).toBe(1500)
    expect(runOptionsFor({ replay: recording }, {}).replayWaitMs).toBeUndefined()
    expect(runOptionsFor({ task: 't' }, { model, replayWaitMs: 1500 }).replayWaitMs).toBeUndefined()
  })
})

describe("the server's plan", () => {
  test('is handed to the run: its task prepared and its secrets read once, not again by the run', async () => {
    const calls: { options: RunOptions; settled: SettledRun | undefined }[] = []
    const manager = quietManager((options, settled) => {
      calls.push({ options, settled })
      // What the run does with them is not this test's: it ends at once.
      return (async function* () {
        yield* []
        throw new Error('Not run here.')
      })()
    }, 9)
    await manager.start({
      task: 'Log in as {{user}} with <secret>password</secret>.',
      variables: { user: 'ada' },
      secrets: { password: 'hunter2' },
      maxCostUsd: undefined,
    })
    await until(() => calls.length === 1)
    const [call] = calls
    expect(call?.settled?.prepared.task).toBe('Log in as ada with <secret>password</secret>.')
    expect(call?.settled?.secrets.scrub('typed hunter2')).toBe('typed <secret>password</secret>')
    expect(call?.options).toMatchObject({ maxTurns: 9, modelName: 'm/m', variables: { user: 'ada' } })
  })
})
