import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openRunStore, thisProcess } from '../../../src/store/open-store.ts'
import { SqliteRunStore } from '../../../src/store/sqlite-store.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { events, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'

let fake: FakeOpenAI
const dir = mkdtempSync(join(tmpdir(), 'sextant-restart-'))
beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: () => doneTurn('Restarted fine.') })
})
afterAll(async () => {
  await fake.close()
  rmSync(dir, { recursive: true, force: true })
})

test('after a restart, finished runs are listed and replayed from SQLite; a run cut off is marked failed', async () => {
  const path = join(dir, 'sextant.db')
  const firstStore = new SqliteRunStore(path)
  const first = await startHarness({ fake, store: firstStore, keepStore: true })
  const response = await postRun(first.url, { task: 'Finish before the restart.' })
  const id = runIdOf(response)
  const streamed = events(await readSse(response))
  await first.close()
  // A run some crashed process left behind, mid-run.
  await firstStore.createRun({
    id: 'run_orphan',
    task: 'Cut off.',
    model: 'x/y',
    createdAt: new Date().toISOString(),
    owner: { pid: 2 ** 22 + 7, host: thisProcess().host, id: 'crashed-process' },
  })
  await firstStore.close()

  const { store, interrupted } = await openRunStore(path)
  expect(interrupted).toEqual(['run_orphan'])
  const second = await startHarness({ fake, store })
  try {
    const page = await json<{ runs: { id: string; status: string }[] }>(await fetch(`${second.url}/v1/runs`))
    expect(page.runs.map((run) => [run.id, run.status])).toEqual(
      expect.arrayContaining([
        [id, 'completed'],
        ['run_orphan', 'failed'],
      ]),
    )
    const replayed = events(await readSse(await fetch(`${second.url}/v1/runs/${id}/events`)))
    // Streamed model text is live-only: a replay from the store has every other event.
    expect(replayed).toEqual(streamed.filter((event) => event.type !== 'text_delta'))
    const orphan = events(await readSse(await fetch(`${second.url}/v1/runs/run_orphan/events`)))
    expect(orphan).toEqual([expect.objectContaining({ type: 'done', reason: 'error', seq: 0 })])
    expect(await json(await fetch(`${second.url}/v1/runs/run_orphan`))).toMatchObject({
      status: 'failed',
      reason: 'error',
      result: { success: false, text: expect.stringMatching(/interrupted/) },
    })
  } finally {
    await second.close()
  }
})
