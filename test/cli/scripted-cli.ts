import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { startTestPage } from '../server/support.ts'
import {
  type FakeOpenAI,
  type FakeTurn,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'

type TestPage = Awaited<ReturnType<typeof startTestPage>>

export interface ScriptedCli {
  /** The file's scratch folder (its databases, runs and files). */
  readonly dir: string
  /** The fake provider the CLI's model talks to; started before the file's tests. */
  readonly fake: FakeOpenAI
  /** A page to navigate to. */
  readonly page: TestPage
  /** The environment of a CLI run against the fake model, storing in `db`. */
  env(db?: string): NodeJS.ProcessEnv
  /** Gives a task its own turns (the model's answers in order) and returns the task's text. */
  script(task: string, ...turns: FakeTurn[]): string
}

/**
 * For a test file of CLI runs: a fake model whose answers follow a script per
 * task text (each CLI run follows its own), a test page, and a scratch
 * folder, set up before the file's tests and removed after them.
 */
export function useScriptedCli(prefix: string): ScriptedCli {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const turns = scriptedTurns()
  let fake: FakeOpenAI | undefined
  let page: TestPage | undefined

  beforeAll(async () => {
    page = await startTestPage()
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(async () => {
    await fake?.close()
    await page?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is used before the file's beforeAll started it`)
    return value
  }
  return {
    dir,
    get fake() {
      return started(fake, 'The fake model')
    },
    get page() {
      return started(page, 'The test page')
    },
    env: (db = join(dir, 'cli.db')) => ({
      SEXTANT_MODEL: 'fake/cli-model',
      SEXTANT_BASE_URL: started(fake, 'The fake model').baseUrl,
      SEXTANT_DB: db,
      SEXTANT_RUNS_DIR: join(dir, 'runs'),
    }),
    script: turns.script,
  }
}
