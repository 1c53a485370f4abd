import { afterAll, beforeAll } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import {
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import type { PageServer } from '../../support/page-server.ts'
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'

/** Runs through the HTTP API on pages of real libraries, driven by a scripted model a test sets. */
export interface WidgetRuns {
  /** The next action of the run under way, from the model's prompt (a test sets its own). */
  policy: (prompt: string) => FakeTurn
  /** Runs `task` from `path` of the pages and reads its whole stream. */
  run(task: string, path: string): Promise<AgentEvent[]>
  /** The fake provider: what the model was asked. */
  readonly fake: FakeOpenAI
}

/** A server with real Chromium and the pages `startPages` serves, for a test file: opened before its tests, closed after. */
export function widgetRuns(startPages: () => Promise<PageServer>, maxTurns: number): WidgetRuns {
  const opened: { fake?: FakeOpenAI; harness?: Harness; pages?: PageServer } = {}
  const runs: WidgetRuns = {
    policy: () => doneTurn('No policy.', false),
    async run(task, path) {
      const { harness, pages } = opened
      if (!harness || !pages) throw new Error('widgetRuns() is used by a test before its beforeAll ran')
      const response = await postRun(harness.url, { task, startUrl: `${pages.url}${path}` })
      return events(await readSse(response))
    },
    get fake() {
      if (!opened.fake) throw new Error('widgetRuns() is used by a test before its beforeAll ran')
      return opened.fake
    },
  }
  beforeAll(async () => {
    opened.pages = await startPages()
    const fake = await startFakeOpenAI({
      fallback: (request: FakeRequest) => runs.policy(promptText(request)),
    })
    opened.fake = fake
    opened.harness = await startHarness({ fake, browser: 'chromium', config: { maxTurns } })
  }, 60_000)
  afterAll(async () => {
    await opened.harness?.close()
    await opened.fake?.close()
    await opened.pages?.close()
  })
  return runs
}
