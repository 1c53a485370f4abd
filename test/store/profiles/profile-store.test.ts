import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { silentLogger } from '../../../src/log.ts'
import {
  MemoryRunStore,
  PostgresRunStore,
  type ProfileCookie,
  ProfileKeyError,
  type ProfileState,
  ProfileStore,
  type RunStore,
  resolveProfileKey,
  SqliteRunStore,
} from '../../../src/store/open-store.ts'
import { createTestDatabase, hasPostgres } from '../../support/postgres.ts'

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-profiles-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

function cookie(name: string, value: string, domain = 'app.test'): ProfileCookie {
  return { name, value, domain, path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }
}

function state(cookies: ProfileCookie[], origins: ProfileState['origins'] = []): ProfileState {
  return { cookies, origins }
}

async function postgresStore(): Promise<RunStore> {
  const store = new PostgresRunStore(await createTestDatabase('profiles'), { maxConnections: 4 })
  await store.ready()
  return store
}

const implementations: [string, () => RunStore | Promise<RunStore>][] = [
  ['MemoryRunStore', () => new MemoryRunStore()],
  ['SqliteRunStore (file)', () => new SqliteRunStore(join(tempDir, `${randomBytes(4).toString('hex')}.db`))],
  ...(hasPostgres ? [['PostgresRunStore', postgresStore] as [string, () => Promise<RunStore>]] : []),
]

describe.each(implementations)('%s profiles', (_name, create) => {
  test('a saved profile loads back; the listing names its sites, never its values', async () => {
    const store = await create()
    const profiles = new ProfileStore(store.profiles, () => randomBytes(32))
    try {
      expect(await profiles.load('p')).toBeUndefined()
      const saved = state(
        [cookie('session', 'v-secret-1')],
        [{ origin: 'http://app.test:8080', localStorage: [{ name: 'k', value: 'v' }] }],
      )
      await profiles.save('p', saved, { base: state([]), runId: 'run-1' })
      expect(await profiles.load('p')).toEqual(saved)
      const [info] = await profiles.list()
      expect(info).toMatchObject({ name: 'p', domains: ['app.test', 'app.test:8080'], lastRunId: 'run-1' })
      expect(JSON.stringify(await profiles.list())).not.toContain('v-secret-1')
      expect(await profiles.delete('p')).toBe(true)
      expect(await profiles.list()).toEqual([])
    } finally {
      await store.close()
    }
  })

  test('saves merge: concurrent saves keep both cookies; a cookie the run removed goes', async () => {
    const store = await create()
    const profiles = new ProfileStore(store.profiles, () => randomBytes(32))
    try {
      const start = state([cookie('shared', '1'), cookie('gone', 'x')])
      await profiles.put('p', start)
      await Promise.all([
        profiles.save('p', state([cookie('shared', '1'), cookie('gone', 'x'), cookie('a', 'A')]), {
          base: start,
        }),
        profiles.save('p', state([cookie('shared', '2'), cookie('b', 'B')]), { base: start }),
      ])
      const names = (await profiles.load('p'))?.cookies.map((c) => `${c.name}=${c.value}`).sort()
      expect(names).toEqual(['a=A', 'b=B', 'shared=2'])
    } finally {
      await store.close()
    }
  })

  test('a profile saved under one key is a clear error under another', async () => {
    const store = await create()
    try {
      await new ProfileStore(store.profiles, () => randomBytes(32)).put('p', state([cookie('s', 'v')]))
      await expect(new ProfileStore(store.profiles, () => randomBytes(32)).load('p')).rejects.toThrow(
        ProfileKeyError,
      )
    } finally {
      await store.close()
    }
  })

  test('a bad name is refused', async () => {
    const store = await create()
    try {
      await expect(new ProfileStore(store.profiles, () => randomBytes(32)).load('../x')).rejects.toThrow(
        /not a profile name/,
      )
    } finally {
      await store.close()
    }
  })
})

test('the SQLite file and its WAL never hold a profile value in clear', async () => {
  const path = join(tempDir, 'clear.db')
  const store = new SqliteRunStore(path)
  const profiles = new ProfileStore(store.profiles, () => randomBytes(32))
  await profiles.put('p', state([cookie('session', 'needle-4f1c9a')]))
  const inFiles = () =>
    [path, `${path}-wal`].some((file) => {
      try {
        return readFileSync(file).includes('needle-4f1c9a')
      } catch {
        return false
      }
    })
  expect(inFiles()).toBe(false)
  await store.close()
  expect(inFiles()).toBe(false)
})

test('without a configured key, a 0600 key file is created once and reused', () => {
  const keyFile = join(tempDir, 'data', 'profile.key')
  const first = resolveProfileKey({ keyFile, log: silentLogger() })
  expect(statSync(keyFile).mode & 0o777).toBe(0o600)
  expect(resolveProfileKey({ keyFile, log: silentLogger() })).toEqual(first)
  const configured = 'ab'.repeat(32)
  expect(resolveProfileKey({ configured, keyFile, log: silentLogger() })).toEqual(
    Buffer.from(configured, 'hex'),
  )
  expect(() => resolveProfileKey({ configured: 'short', keyFile, log: silentLogger() })).toThrow(
    ProfileKeyError,
  )
})
