import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { doneTurn, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { startPageServer } from '../support/page-server.ts'
import { startCli } from './support.ts'

const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-profiles-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const env = { SEXTANT_DB: join(dir, 'cli.db'), SEXTANT_RUNS_DIR: join(dir, 'data', 'runs') }
const value = 'cli-needle-83b1'

async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const run = startCli(['profiles', ...args], { ...env, ...extraEnv })
  return { code: await run.exited, stdout: run.stdout(), stderr: run.stderr() }
}

test('profiles import, list, export and delete; the key file is made once, 0600, and said where', async () => {
  const stateFile = join(dir, 'state.json')
  writeFileSync(
    stateFile,
    JSON.stringify({ cookies: [{ name: 'session', value, domain: '.shop.test', path: '/' }], origins: [] }),
  )
  const imported = await cli(['import', 'shop', stateFile])
  expect(imported.code, imported.stderr).toBe(0)
  const keyFile = join(dir, 'data', 'profile.key')
  expect(imported.stderr).toContain(keyFile)
  expect(statSync(keyFile).mode & 0o777).toBe(0o600)

  const listed = await cli(['list'])
  expect(listed.code).toBe(0)
  expect(listed.stdout).toMatch(/shop\s+\d+ B/)
  expect(listed.stdout).toContain('shop.test')
  expect(listed.stdout + listed.stderr).not.toContain(value)
  expect(readFileSync(env.SEXTANT_DB).includes(value)).toBe(false)

  const exported = await cli(['export', 'shop'])
  expect(JSON.parse(exported.stdout)).toMatchObject({ cookies: [{ name: 'session', value }] })

  const wrongKey = await cli(['export', 'shop'], { SEXTANT_PROFILE_KEY: 'cd'.repeat(32) })
  expect(wrongKey.code).toBe(1)
  expect(wrongKey.stderr).toMatch(/cannot be decrypted: it was saved under another key/)

  // A run on that profile under the wrong key ends before any model call, naming the profile, not the browser.
  const run = startCli(['run', 'Shop', '--profile', 'shop', '--json'], {
    ...env,
    SEXTANT_PROFILE_KEY: 'cd'.repeat(32),
    SEXTANT_MODEL: 'fake/m',
    SEXTANT_BASE_URL: 'http://127.0.0.1:9/v1',
  })
  expect(await run.exited).toBe(1)
  const done = run
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((event) => event.type === 'done')
  expect(done?.result.text).toMatch(/^The run could not load its profile: Profile "shop" cannot be decrypted/)

  expect((await cli(['delete', 'shop'])).code).toBe(0)
  expect((await cli(['delete', 'shop'])).code).toBe(1)
  expect((await cli(['list'])).stdout).toContain('No profiles yet.')
})

test('a bad name or subcommand is a usage error', async () => {
  expect((await cli(['import', '../x', join(dir, 'none.json')])).code).toBe(2)
  expect((await cli(['rename', 'a'])).code).toBe(2)
  const modelEnv = { SEXTANT_MODEL: 'fake/m', SEXTANT_BASE_URL: 'http://127.0.0.1:9/v1' }
  const run = startCli(['run', 'task', '--profile', 'p', '--profile-save', 'sometimes'], {
    ...env,
    ...modelEnv,
  })
  expect(await run.exited).toBe(2)
  expect(run.stderr()).toMatch(/--profile-save must be/)
})

test('run --profile starts from the profile and saves what the site set back into it', async () => {
  const fake = await startFakeOpenAI({ fallback: () => doneTurn('Done.') })
  const site = await startPageServer({
    routes: {
      '/': (_request, response) => {
        response.writeHead(200, { 'set-cookie': 'visited=yes; Path=/', 'content-type': 'text/html' })
        response.end('<!doctype html><title>Site</title><p>Hi</p>')
      },
    },
  })
  try {
    const modelEnv = {
      SEXTANT_MODEL: 'fake/m',
      SEXTANT_BASE_URL: fake.baseUrl,
      SEXTANT_CHROMIUM: '/usr/bin/chromium',
    }
    const run = startCli(['run', 'Visit', '--url', `${site.url}/`, '--profile', 'visits', '--json'], {
      ...env,
      ...modelEnv,
    })
    expect(await run.exited, run.stderr()).toBe(0)
    const exported = await cli(['export', 'visits'])
    expect(JSON.parse(exported.stdout)).toMatchObject({ cookies: [{ name: 'visited', value: 'yes' }] })
  } finally {
    await site.close()
    await fake.close()
  }
})
