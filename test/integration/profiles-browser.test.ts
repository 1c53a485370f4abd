import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SessionState } from '../../src/browser/browser-session.ts'
import { openStandaloneSession } from '../../src/browser/launch/launcher.ts'
import { runAgent } from '../../src/index.ts'
import { PostgresRunStore, ProfileStore, type RunStore, SqliteRunStore } from '../../src/store/open-store.ts'
import { agentOutput, refOf, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { doneOf, ofType } from '../support/run.ts'

// A site that signs a visitor in with an HttpOnly session cookie, and greets a signed-in one.
// It remembers the cookies each request to / carried, so a test sees what the browser sent.
const tempDir = mkdtempSync(join(tmpdir(), 'sextant-profile-runs-'))
const sessionValue = `tok-${randomBytes(8).toString('hex')}`
let server: PageServer
const seenCookies: string[] = []

const signInPage = `<!doctype html><title>Sign in</title><form action="/signin">
<label>Password <input type="password" name="password"></label><button>Sign in</button></form>`

function cookiesOf(request: IncomingMessage): string {
  return request.headers.cookie ?? ''
}

beforeAll(async () => {
  server = await startPageServer({
    routes: {
      '/': (request, response) => {
        const cookies = cookiesOf(request)
        seenCookies.push(cookies)
        const signedIn = cookies.includes(`session=${sessionValue}`)
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        response.end(signedIn ? '<!doctype html><title>Home</title><h1>Hello, Ada</h1>' : signInPage)
      },
      '/signin': (_request, response) => {
        response.writeHead(302, { 'set-cookie': `session=${sessionValue}; HttpOnly; Path=/`, location: '/' })
        response.end()
      },
      '/add': (request, response) => {
        const name = new URL(request.url ?? '/', 'http://x').searchParams.get('name') ?? 'x'
        response.writeHead(200, { 'set-cookie': `${name}=kept; Path=/`, 'content-type': 'text/html' })
        response.end(`<!doctype html><title>Added ${name}</title><p>Added</p>`)
      },
    },
  })
})

afterAll(async () => {
  await server.close()
  rmSync(tempDir, { recursive: true, force: true })
})

const finish = { output: agentOutput({ done: { text: 'Done.', success: true } }) }

async function sqliteStore(): Promise<{ store: RunStore; files: string[] }> {
  const path = join(tempDir, `${randomBytes(4).toString('hex')}.db`)
  return { store: new SqliteRunStore(path), files: [path, `${path}-wal`] }
}

async function postgresStore(): Promise<{ store: RunStore; files: string[] }> {
  const store = new PostgresRunStore(await createTestDatabase('profiles'), { maxConnections: 4 })
  await store.ready()
  return { store, files: [] }
}

const stores: [string, () => Promise<{ store: RunStore; files: string[] }>][] = [
  ['SQLite', sqliteStore],
  ...(hasPostgres ? [['PostgreSQL', postgresStore] as [string, typeof postgresStore]] : []),
]

describe.each(stores)('profiles in %s', (_name, open) => {
  test('run 2 starts signed in where run 1 signed in; the database never holds the cookie in clear', async () => {
    const { store, files } = await open()
    const profiles = new ProfileStore(store.profiles, () => randomBytes(32).fill(7))
    try {
      const signIn = scriptedModel([
        (prompt) => ({
          output: agentOutput({
            type: { ref: refOf(prompt, 'textbox', 'Password'), text: 'pw', submit: true },
          }),
        }),
        (prompt) => {
          expect(prompt).toContain('Hello, Ada')
          return finish
        },
      ])
      const first = []
      for await (const event of runAgent({
        task: 'Sign in',
        startUrl: `${server.url}/`,
        model: signIn,
        profile: 'p',
        profiles,
      }))
        first.push(event)
      expect(doneOf(first)).toMatchObject({ reason: 'model_stop', result: { success: true } })
      expect(JSON.stringify(first)).not.toContain(sessionValue)

      seenCookies.length = 0
      const greeted = scriptedModel([
        (prompt) => {
          expect(prompt).toContain('Hello, Ada')
          return finish
        },
      ])
      const second = []
      for await (const event of runAgent({
        task: 'Greet',
        startUrl: `${server.url}/`,
        model: greeted,
        profile: 'p',
        profiles,
      }))
        second.push(event)
      expect(doneOf(second)).toMatchObject({ reason: 'model_stop', result: { success: true } })
      expect(ofType(second, 'tool_call_start').map((call) => call.tool)).toEqual(['done'])
      expect(seenCookies[0]).toContain(`session=${sessionValue}`)
      for (const file of files) expect(readFileSync(file).includes(sessionValue)).toBe(false)
    } finally {
      await store.close()
    }
  })

  test('two runs at once on one profile each keep the cookie they added', async () => {
    const { store } = await open()
    const profiles = new ProfileStore(store.profiles, () => randomBytes(32).fill(9))
    try {
      const add = (name: string) =>
        (async () => {
          const events = []
          for await (const event of runAgent({
            task: `Add ${name}`,
            startUrl: `${server.url}/add?name=${name}`,
            model: scriptedModel([finish]),
            profile: 'shared',
            profiles,
          }))
            events.push(event)
          return doneOf(events)
        })()
      const [a, b] = await Promise.all([add('alpha'), add('beta')])
      expect([a.reason, b.reason]).toEqual(['model_stop', 'model_stop'])
      const names = (await profiles.load('shared'))?.cookies.map((cookie) => cookie.name).sort()
      expect(names).toEqual(['alpha', 'beta'])
    } finally {
      await store.close()
    }
  })
})

test('a run with allowedDomains is not given the cookies of another site in its profile', async () => {
  const { store } = await sqliteStore()
  const profiles = new ProfileStore(store.profiles, () => randomBytes(32).fill(5))
  const cookie = {
    value: 'v',
    path: '/',
    expires: -1,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax' as const,
  }
  await profiles.put('mixed', {
    cookies: [
      { ...cookie, name: 'here', domain: '127.0.0.1' },
      { ...cookie, name: 'elsewhere', domain: 'other.example' },
    ],
    origins: [],
  })
  let given: SessionState | undefined
  try {
    const events = []
    for await (const event of runAgent({
      task: 'Look',
      startUrl: `${server.url}/add?name=gamma`,
      model: scriptedModel([finish]),
      allowedDomains: ['127.0.0.1'],
      profile: 'mixed',
      profileSave: 'never',
      profiles,
      browser: (options, signal) => {
        given = options.storageState
        return openStandaloneSession(options, signal)
      },
    }))
      events.push(event)
    expect(doneOf(events).reason).toBe('model_stop')
    expect(given?.cookies.map((c) => c.name)).toEqual(['here'])
    // profileSave never: the cookie the site set in this run was not saved.
    expect((await profiles.load('mixed'))?.cookies.map((c) => c.name).sort()).toEqual(['elsewhere', 'here'])
  } finally {
    await store.close()
  }
})
