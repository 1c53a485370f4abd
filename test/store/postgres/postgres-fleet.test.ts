import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { runChannel } from '../../../src/store/postgres/postgres-events.ts'
import { PostgresRunStore } from '../../../src/store/postgres/postgres-store.ts'
import { maxStepFileBytes } from '../../../src/util/step-files.ts'
import { createTestDatabase, hasPostgres } from '../../support/postgres.ts'
import { until } from '../../support/until.ts'

const owner = { pid: 4242, host: 'elsewhere', id: 'fleet-test-owner' }

function started(runId: string): AgentEvent {
  return {
    type: 'run_started',
    runId,
    seq: 0,
    at: new Date().toISOString(),
    task: 't',
    model: 'm',
    maxTurns: 5,
  }
}

function warning(runId: string, seq: number): AgentEvent {
  return {
    type: 'warning',
    runId,
    seq,
    at: new Date().toISOString(),
    code: 'event_truncated',
    message: `w${seq}`,
  }
}

describe.skipIf(!hasPostgres)('PostgreSQL for a fleet', () => {
  test("a follower is woken on its run's own channel only: notifications counted per channel", async () => {
    const url = await createTestDatabase('channels')
    const writer = new PostgresRunStore(url, { maxConnections: 2 })
    const follower = new PostgresRunStore(url, { maxConnections: 2 })
    // What every channel carries, heard by a listener of its own.
    const spy = postgres(url, { max: 1, onnotice: () => {} })
    const counted = new Map<string, number>()
    for (const id of ['followed', 'other']) {
      await spy.listen(runChannel(id), () => counted.set(id, (counted.get(id) ?? 0) + 1))
    }
    try {
      for (const id of ['followed', 'other']) {
        await writer.createRun({ id, task: 't', model: 'm', createdAt: new Date().toISOString(), owner })
      }
      const woken: number[] = []
      const stop = await follower.followEvents('followed', (lastSeq) => woken.push(lastSeq))
      await writer.appendEvents([started('followed'), started('other')])
      for (let seq = 1; seq <= 5; seq++) await writer.appendEvents([warning('other', seq)])
      await writer.appendEvents([warning('followed', 1)])
      // The spy's own connection may hear the followed channel after the follower did: wait for both.
      await until(() => woken.includes(1) && counted.get('other') === 6 && counted.get('followed') === 2, {
        what: 'the notifications',
      })
      // One notification per batch of the followed run, its last seq; none for the other run's six.
      expect(woken).toEqual([0, 1])
      expect(Object.fromEntries(counted)).toEqual({ followed: 2, other: 6 })

      await stop()
      await writer.appendEvents([warning('followed', 2)])
      await until(() => counted.get('followed') === 3)
      expect(woken).toEqual([0, 1])
    } finally {
      await spy.end()
      await writer.close()
      await follower.close()
    }
  })

  test('a run id too long for a channel name gets a hashed channel, still its own', () => {
    const long = 'x'.repeat(100)
    expect(runChannel('run_abc')).toBe('sextant_run_run_abc')
    expect(Buffer.byteLength(runChannel(long))).toBeLessThanOrEqual(63)
    expect(runChannel(long)).not.toBe(runChannel(`${long}y`))
  })

  test("step files and downloads are kept in the store, step files bounded, and go with their run; the owner's address is kept with it", async () => {
    const store = new PostgresRunStore(await createTestDatabase('step_files'), { maxConnections: 2 })
    try {
      const createdAt = new Date(Date.now() - 60_000).toISOString()
      await store.createRun({
        id: 'r1',
        task: 't',
        model: 'm',
        createdAt,
        owner: { ...owner, url: 'http://a:8787' },
      })
      expect(await store.ownerUrl('r1')).toBe('http://a:8787')
      await store.stepFiles.put('r1', 1, { screenshot: new Uint8Array([0xff, 0xd8, 1]), pageView: 'view ü' })
      expect([...((await store.stepFiles.get('r1', 1, 'screenshot')) ?? [])]).toEqual([0xff, 0xd8, 1])
      expect(Buffer.from((await store.stepFiles.get('r1', 1, 'page-view')) ?? []).toString()).toBe('view ü')
      expect(await store.stepFiles.get('r1', 2, 'screenshot')).toBeUndefined()
      await expect(
        store.stepFiles.put('r1', 2, { screenshot: new Uint8Array(maxStepFileBytes + 1), pageView: '' }),
      ).rejects.toThrow(/over the/)
      const file = join(mkdtempSync(join(tmpdir(), 'sextant-download-')), 'a.csv')
      writeFileSync(file, 'x,y\n')
      await store.downloads.put('r1', 'report ü.csv', file)
      expect(await store.downloads.list('r1')).toEqual([{ name: 'report ü.csv', bytes: 4 }])
      expect(Buffer.from((await store.downloads.get('r1', 'report ü.csv')) ?? []).toString()).toBe('x,y\n')
      expect(await store.downloads.get('r1', 'other.csv')).toBeUndefined()
      // Artifacts in their own table, beside the downloads: a name of each is its own.
      await store.artifacts.put('r1', 'network.har', file)
      expect(await store.artifacts.list('r1')).toEqual([{ name: 'network.har', bytes: 4 }])
      expect(await store.downloads.list('r1')).toEqual([{ name: 'report ü.csv', bytes: 4 }])

      await store.appendEvents([
        started('r1'),
        {
          type: 'done',
          runId: 'r1',
          seq: 1,
          at: createdAt,
          reason: 'model_stop',
          result: { success: true, text: 'ok' },
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          steps: 1,
          durationMs: 1,
        },
      ])
      expect(await store.ownerUrl('r1')).toBeUndefined()
      expect(await store.deleteFinishedRuns({ finishedBefore: new Date().toISOString() })).toEqual(['r1'])
      expect(await store.stepFiles.get('r1', 1, 'screenshot')).toBeUndefined()
      expect(await store.downloads.list('r1')).toEqual([])
      expect(await store.artifacts.list('r1')).toEqual([])
    } finally {
      await store.close()
    }
  })
})
