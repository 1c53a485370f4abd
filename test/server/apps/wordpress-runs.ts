import { afterAll, beforeAll } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { startWordPress, type WordPress } from '../../support/apps/wordpress.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'
import { latestView, refOn } from '../widgets/view-reading.ts'

/** The secret the administrator's password travels as: the model writes only its placeholder. */
export const passwordSecret = 'wp_password'

/** Runs through the HTTP API on a throwaway WordPress site, driven by a scripted model a test sets. */
export interface WordPressRuns {
  /** The next action of the run under way, from the latest page view in the model's prompt. */
  policy: (view: string) => FakeTurn
  /** Runs `task` from `path` of the site (e.g. `/wp-admin/`), the password given as a secret, and reads its whole stream. */
  run(task: string, path: string): Promise<AgentEvent[]>
  readonly site: WordPress
  readonly fake: FakeOpenAI
}

/** A WordPress site, a fake model and a server with real Chromium, for one test file: opened before its tests, closed after. */
export function wordpressRuns(maxTurns: number): WordPressRuns {
  const opened: { fake?: FakeOpenAI; harness?: Harness; site?: WordPress } = {}
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('wordpressRuns() is used by a test before its beforeAll ran')
    return value
  }
  const runs: WordPressRuns = {
    policy: () => doneTurn('No policy.', false),
    async run(task, path) {
      const site = ready(opened.site)
      const response = await postRun(ready(opened.harness).url, {
        task,
        startUrl: `${site.url}${path}`,
        secrets: { [passwordSecret]: site.admin.password },
      })
      return events(await readSse(response))
    },
    get site() {
      return ready(opened.site)
    },
    get fake() {
      return ready(opened.fake)
    },
  }
  beforeAll(async () => {
    opened.site = await startWordPress()
    opened.fake = await startFakeOpenAI({
      fallback: (request) => runs.policy(latestView(promptText(request))),
    })
    opened.harness = await startHarness({ fake: opened.fake, browser: 'chromium', config: { maxTurns } })
  }, 120_000)
  afterAll(async () => {
    await opened.harness?.close()
    await opened.fake?.close()
    await opened.site?.stop()
  })
  return runs
}

/**
 * WordPress's login form as a model meets it: the user name typed first, then the password (its secret's
 * placeholder) with Enter. Undefined when the view is no login form.
 */
export function logIn(view: string, user: string): FakeTurn | undefined {
  if (!view.includes('Title: Log In')) return undefined
  const name = refOn(view, /textbox "Username or Email Address"/)
  if (name && !refOn(view, new RegExp(`textbox "Username or Email Address".*: ${user}$`)))
    return actionTurn('type', { ref: name, text: user })
  const password = refOn(view, /textbox "Password"/)
  return password
    ? actionTurn('type', { ref: password, text: `<secret>${passwordSecret}</secret>`, submit: true })
    : doneTurn('The login form has no password field.', false)
}
