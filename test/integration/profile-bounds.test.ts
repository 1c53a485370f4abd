import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/index.ts'
import { PostgresRunStore, ProfileStore, type RunStore, SqliteRunStore } from '../../src/store/open-store.ts'
import { startCli } from '../cli/support.ts'
import { type Harness, startHarness } from '../server/support.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { doneOf, ofType } from '../support/run.ts'

// A page fills localStorage on several subdomains (Chromium sends *.localhost to this machine), so the
// state a run would save back to its profile is larger than the bound: the save is skipped with a
// warning naming the size and the bound, and the profile keeps what it held. Imports over the bound
// are refused over HTTP and by the CLI. Real Chromium, real SQLite and PostgreSQL.

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-profile-bounds-'))
/** Small enough to reach quickly; the mechanism is the one SEXTANT_MAX_PROFILE_BYTES (5 MB) sets. */
const maxBytes = 300_000
const subdomains = ['mail', 'docs', 'chat']
let site: PageServer
let port = ''

/** Stores 120,000 characters under this origin's localStorage as it loads. */
const fillingPage = `<!doctype html><title>Filled</title><p>Filled</p>
<script>localStorage.setItem('blob', 'x'.repeat(120000))</script>`

beforeAll(async () => {
  site = await startPageServer({ pages: { '/fill': fillingPage } })
  port = new URL(site.url).port
})
afterAll(async () => {
  await site?.close()
  rmSync(tempDir, { recursive: true, force: true })
})

const pageOn = (subdomain: string) => `http://${subdomain}.localhost:${port}/fill`
const small = {
  cookies: [
    {
      name: 'session',
      value: 'kept',
      domain: 'mail.localhost',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax' as const,
    },
  ],
  origins: [],
}

async function postgresStore(): Promise<RunStore> {
  const store = new PostgresRunStore(await createTestDatabase('profile_bounds'), { maxConnections: 4 })
  await store.ready()
  return store
}

const stores: [string, () => Promise<RunStore>][] = [
  ['SQLite', async () => new SqliteRunStore(join(tempDir, `${randomBytes(4).toString('hex')}.db`))],
  ...(hasPostgres ? [['PostgreSQL', postgresStore] as [string, () => Promise<RunStore>]] : []),
]

describe.each(stores)('a profile in %s', (_name, open) => {
  test('a save over the bound is not written: a warning names its size and the bound; the old profile stays', async () => {
    const store = await open()
    const profiles = new ProfileStore(store.profiles, () => randomBytes(32).fill(3), { maxBytes })
    try {
      await profiles.put('filled', small)
      const [second = '', third = ''] = subdomains.slice(1).map(pageOn)
      const model = scriptedModel([
        { output: agentOutput({ navigate: { url: second } }) },
        { output: agentOutput({ navigate: { url: third } }) },
        { output: agentOutput({ done: { text: 'Read them all.', success: true } }) },
      ])
      const events = []
      for await (const event of runAgent({
        task: 'Read the three apps',
        startUrl: pageOn(subdomains[0] ?? ''),
        model,
        profile: 'filled',
        profiles,
      }))
        events.push(event)
      expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { success: true } })
      const warnings = ofType(events, 'warning').filter((warning) => warning.code === 'profile_too_large')
      expect(warnings).toHaveLength(1)
      const message = warnings[0]?.message ?? ''
      expect(message).toMatch(
        /^Profile "filled" was not saved: it would hold (\d{3},\d{3}) bytes, more than the limit of 300,000 bytes \(SEXTANT_MAX_PROFILE_BYTES\)\. The profile as it was before this run is kept\.$/,
      )
      // Three origins of 120,000 characters each: well over the bound.
      const size = Number(/hold ([\d,]+) bytes/.exec(message)?.[1]?.replaceAll(',', ''))
      expect(size).toBeGreaterThan(3 * 120_000)
      expect(await profiles.load('filled')).toEqual(small)
      const [info] = await profiles.list()
      expect(info).toMatchObject({ name: 'filled' })
      expect(info?.lastRunId).toBeUndefined()
    } finally {
      await store.close()
    }
  }, 120_000)
})

const oversized = {
  cookies: [],
  origins: subdomains.map((subdomain) => ({
    origin: `http://${subdomain}.localhost:8080`,
    localStorage: [{ name: 'blob', value: 'x'.repeat(120_000) }],
  })),
}

describe('importing a profile over the bound', () => {
  let harness: Harness
  let fake: FakeOpenAI
  beforeAll(async () => {
    fake = await startFakeOpenAI()
    const config = { profileKey: 'ab'.repeat(32), maxProfileBytes: maxBytes }
    harness = await startHarness({ fake, browser: null, config })
  })
  afterAll(async () => {
    await harness?.close()
    await fake?.close()
  })

  test('PUT /v1/profiles/:name answers 413 with the size and the bound; nothing is stored', async () => {
    const put = (body: unknown) =>
      fetch(`${harness.url}/v1/profiles/big`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await put(small)).status).toBe(200)
    const refused = await put(oversized)
    expect(refused.status).toBe(413)
    const { error } = (await refused.json()) as { error: { code: string; message: string } }
    expect(error.code).toBe('payload_too_large')
    expect(error.message).toMatch(
      /^Profile "big" would hold [\d,]+ bytes, more than the limit of 300,000 bytes \(SEXTANT_MAX_PROFILE_BYTES\)\. Nothing was stored\.$/,
    )
    const listed = (await (await fetch(`${harness.url}/v1/profiles`)).json()) as {
      profiles: { name: string; size: number }[]
    }
    expect(listed.profiles).toEqual([
      expect.objectContaining({ name: 'big', size: JSON.stringify(small).length }),
    ])
  })

  test('sextant profiles import refuses it with the same message', async () => {
    const file = join(tempDir, 'big.json')
    writeFileSync(file, JSON.stringify(oversized))
    const cli = startCli(['profiles', 'import', 'big', file], {
      SEXTANT_DB: join(tempDir, 'cli.db'),
      SEXTANT_RUNS_DIR: join(tempDir, 'runs'),
      SEXTANT_MAX_PROFILE_BYTES: String(maxBytes),
    })
    expect(await cli.exited).toBe(1)
    expect(cli.stderr()).toMatch(
      /sextant: Profile "big" would hold [\d,]+ bytes, more than the limit of 300,000 bytes \(SEXTANT_MAX_PROFILE_BYTES\)\./,
    )
  })
})
