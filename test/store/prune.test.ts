import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { pruneRuns } from '../../src/cli/commands/runs-prune.ts'
import { stampEvent } from '../../src/events/events.ts'
import { thisProcess } from '../../src/store/owner.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'

const day = 86_400_000
const now = new Date('2026-06-30T12:00:00.000Z')
const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function setup() {
  const folder = mkdtempSync(join(tmpdir(), 'sextant-prune-'))
  folders.push(folder)
  const store = new SqliteRunStore(join(folder, 'runs.db'))
  const runsDir = join(folder, 'runs')
  const add = async (id: string, ageDays: number, finished: boolean) => {
    const at = new Date(now.getTime() - ageDays * day).toISOString()
    await store.createRun({ id, task: id, model: 'fake/m', createdAt: at, owner: thisProcess() })
    await store.appendEvents([
      stampEvent({ type: 'step_started', step: 1, maxTurns: 5 }, id, 0, new Date(at)),
    ])
    if (finished) {
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
      await store.finishRun(id, {
        reason: 'model_stop',
        result: { success: true, text: 'ok' },
        usage,
        steps: 1,
        finishedAt: at,
      })
    }
    mkdirSync(join(runsDir, id, 'steps'), { recursive: true })
    writeFileSync(join(runsDir, id, 'steps', '1.jpg'), 'jpeg')
  }
  return { store, runsDir, add }
}

test('prune deletes old finished runs, their events and their files; running and recent runs stay', async () => {
  const { store, runsDir, add } = setup()
  await add('run_old', 40, true)
  await add('run_recent', 3, true)
  await add('run_old_but_running', 40, false)
  // A folder whose run is no longer stored (a prune that stopped halfway), and old.
  mkdirSync(join(runsDir, 'run_orphan'), { recursive: true })
  const old = new Date(now.getTime() - 40 * day)
  utimesSync(join(runsDir, 'run_orphan'), old, old)

  const outcome = await pruneRuns(store, runsDir, 30 * day, now)

  expect(outcome).toMatchObject({ runs: ['run_old'], orphans: ['run_orphan'], failures: [] })
  expect(await store.getRun('run_old')).toBeUndefined()
  expect(await store.events('run_old')).toEqual([])
  expect(existsSync(join(runsDir, 'run_old'))).toBe(false)
  expect(existsSync(join(runsDir, 'run_orphan'))).toBe(false)
  for (const id of ['run_recent', 'run_old_but_running']) {
    expect(await store.getRun(id)).toBeDefined()
    expect(await store.events(id)).toHaveLength(1)
    expect(existsSync(join(runsDir, id, 'steps', '1.jpg'))).toBe(true)
  }
  expect((await store.listRuns()).runs.map((run) => run.id).sort()).toEqual([
    'run_old_but_running',
    'run_recent',
  ])
  await store.close()
})
