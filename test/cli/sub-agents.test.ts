import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import {
  agentOutput,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { startCli } from './support.ts'

// `sextant run --sub-agents N`: the children's steps are shown indented under the parent's
// dispatching step, and each child is recorded as a run of its own, linked to the parent.

const parentTask = 'Ask two helpers and report.'
let fake: FakeOpenAI
const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-sub-'))

beforeAll(async () => {
  fake = await startFakeOpenAI({
    fallback: (request) => {
      const prompt = promptText(request)
      if (prompt.includes(parentTask)) {
        return prompt.includes('sub-agents finished.')
          ? doneTurn('Both helpers answered.')
          : {
              output: agentOutput({
                dispatch_agent: { tasks: [{ task: 'Helper one.' }, { task: 'Helper two.' }] },
              }),
            }
      }
      return doneTurn(prompt.includes('Helper one.') ? 'One is fine.' : 'Two is fine.')
    },
  })
})
afterAll(async () => {
  await fake?.close()
  rmSync(dir, { recursive: true, force: true })
})

const env = (): NodeJS.ProcessEnv => ({
  SEXTANT_MODEL: 'fake/cli-model',
  SEXTANT_BASE_URL: fake.baseUrl,
  SEXTANT_DB: join(dir, 'cli.db'),
  SEXTANT_RUNS_DIR: join(dir, 'runs'),
})

test('children are indented under the step that dispatched them and recorded as runs of their own', async () => {
  const cli = startCli(['run', parentTask, '--sub-agents', '2', '--max-turns', '9'], env())
  expect(await cli.exited).toBe(0)
  const lines = cli.stdout().split('\n')
  const dispatchAt = lines.findIndex((line) => line.includes('→ dispatch_agent'))
  const nextStep = lines.findIndex((line, index) => index > dispatchAt && line.startsWith('Step '))
  expect(dispatchAt).toBeGreaterThan(0)
  const between = lines.slice(dispatchAt + 1, nextStep)
  for (const [number, task, answer] of [
    [1, 'Helper one.', 'One is fine.'],
    [2, 'Helper two.', 'Two is fine.'],
  ] as const) {
    expect(between).toContain(`    [${number}] started: ${task} (up to 3 steps)`)
    expect(between).toContain(`    [${number}] ✔ model_stop · 1 steps: ${answer}`)
  }
  expect(cli.stdout()).toContain('Both helpers answered.')

  const store = new SqliteRunStore(join(dir, 'cli.db'))
  const parent = (await store.listRuns()).runs.find((run) => run.task === parentTask)
  const children = await store.childRuns(parent?.id ?? '')
  // Started at once: their order is the store's (by creation time, then id), so sorted by task here.
  const rows = children.map((child) => [child.task, child.status, child.parentRunId, child.result?.text])
  expect(rows.sort()).toEqual([
    ['Helper one.', 'completed', parent?.id, 'One is fine.'],
    ['Helper two.', 'completed', parent?.id, 'Two is fine.'],
  ])
  await store.close()
})

test('--sub-agents takes a number from 1 to 10', async () => {
  const cli = startCli(['run', parentTask, '--sub-agents', '0'], env())
  expect(await cli.exited).toBe(2)
  expect(cli.stderr()).toContain('--sub-agents takes a number from 1 to 10, got "0".')
})
