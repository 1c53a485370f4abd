import { afterAll, beforeAll } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import {
  doneTurn,
  type FakeOpenAI,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'
import { latestView } from '../widgets/view-reading.ts'

/** What a test needs of a real application it started (test/support/apps/). */
export interface App {
  url: string
  stop(): Promise<void>
}

/** Runs through the HTTP API on a throwaway real application, driven by a scripted model a test sets. */
export interface AppRuns<A extends App> {
  /** The next action of the run under way, from the latest page view in the model's prompt. */
  policy: (view: string) => FakeTurn
  /** Runs `task` from `path` of the application (e.g. `/wp-admin/`) and reads its whole stream. */
  run(task: string, path: string): Promise<AgentEvent[]>
  readonly app: A
  readonly fake: FakeOpenAI
}

/**
 * An application `start` opens, a fake model and a server with real Chromium, for one test file: opened
 * before its tests, closed after. `secrets` are the runs' secrets (a password the model writes only as
 * its placeholder).
 */
export function appRuns<A extends App>(
  start: () => Promise<A>,
  maxTurns: number,
  secrets: (app: A) => Record<string, string> = () => ({}),
): AppRuns<A> {
  const opened: { fake?: FakeOpenAI; harness?: Harness; app?: A } = {}
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('appRuns() is used by a test before its beforeAll ran')
    return value
  }
  const runs: AppRuns<A> = {
    policy: () => doneTurn('No policy.', false),
    async run(task, path) {
      const app = ready(opened.app)
      const response = await postRun(ready(opened.harness).url, {
        task,
        startUrl: `${app.url}${path}`,
        secrets: secrets(app),
      })
      return events(await readSse(response))
    },
    get app() {
      return ready(opened.app)
    },
    get fake() {
      return ready(opened.fake)
    },
  }
  beforeAll(async () => {
    opened.app = await start()
    opened.fake = await startFakeOpenAI({
      fallback: (request) => runs.policy(latestView(promptText(request))),
    })
    opened.harness = await startHarness({ fake: opened.fake, browser: 'chromium', config: { maxTurns } })
  }, 120_000)
  afterAll(async () => {
    await opened.harness?.close()
    await opened.fake?.close()
    await opened.app?.stop()
  })
  return runs
}

/** The results of the run's actions (not of its `done`). */
export function actionResults(list: AgentEvent[]): { ok: boolean; result: string }[] {
  const actions = new Set(
    list.flatMap((event) =>
      event.type === 'tool_call_start' && event.tool !== 'done' ? [event.callId] : [],
    ),
  )
  return list.flatMap((event) =>
    event.type === 'tool_call_result' && actions.has(event.callId)
      ? [{ ok: event.ok, result: event.result }]
      : [],
  )
}
