import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { RunSecrets } from '../../../src/secrets/secrets.ts'
import type { ToolResult } from '../../../src/tool.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { Driver, testPool } from '../helpers/harness.ts'

// The browser side of secrets and bounds: a placeholder becomes its value only inside the tool,
// on the secret's domains; downloads over the cap are cancelled; `..name` files upload.

let pool: BrowserPool
let server: PageServer
let scratch: string

const bigBytes = 200_000
const formPage = `<!doctype html><meta charset="utf-8"><title>Form</title>
<label>Code <input id="code"></label>
<a href="/big.bin" download>Big declared</a>
<a href="/chunked.bin" download>Big chunked</a>
<a href="/small.bin" download>Small</a>`

beforeAll(async () => {
  server = await startPageServer({
    pages: { '/form': formPage },
    routes: {
      '/big.bin': (_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': String(bigBytes),
          'content-disposition': 'attachment; filename="big.bin"',
        })
        response.end(Buffer.alloc(bigBytes, 1))
      },
      '/chunked.bin': (_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="chunked.bin"',
        })
        for (let i = 0; i < 20; i++) response.write(Buffer.alloc(bigBytes / 20, 2))
        response.end()
      },
      '/small.bin': (_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="small.bin"',
        })
        response.end(Buffer.alloc(100, 3))
      },
    },
  })
  pool = testPool()
  scratch = await mkdtemp(join(tmpdir(), 'sextant-secrets-bounds-'))
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

function actWithSecrets(
  driver: Driver,
  secrets: RunSecrets,
  tool: string,
  input: Record<string, unknown>,
): Promise<ToolResult> {
  return driver.actWith(secrets, tool, input)
}

describe('secrets in the browser tools', () => {
  test('type reveals a value on its domain only and never puts it in its result; no other input reveals one', async () => {
    const driver = await Driver.open(pool, { startUrl: `${server.url}/form` })
    await driver.observe()
    const here = new URL(server.url).host
    const secrets = RunSecrets.from({
      code: { value: 'c0de-V4lue', domains: [here] },
      other: { value: 'elsewhere-1', domains: ['example.com'] },
    })
    const code = driver.ref('textbox', 'Code')

    const typed = await actWithSecrets(driver, secrets, 'type', { ref: code, text: '<secret>code</secret>' })
    expect(typed).toEqual({
      ok: true,
      text: 'Typed "<secret>code</secret>" into textbox \'Code\'.',
      typedSecrets: ['code'],
    })

    const refused = await actWithSecrets(driver, secrets, 'type', {
      ref: code,
      text: '<secret>other</secret>',
    })
    expect(refused).toEqual({
      ok: false,
      text: `Did not type into textbox 'Code'. Refused: the secret "other" may only be used on example.com, and this page is ${here}.`,
    })
    // Anywhere but a typed field, a placeholder is refused before the action runs, secrets or none.
    for (const [tool, input, field] of [
      [
        'execute_javascript',
        { script: 'document.getElementById("code").value = "<secret>code</secret>"' },
        'script',
      ],
      ['navigate', { url: `${server.url}/form?k=<secret>code</secret>` }, 'url'],
      ['open_tab', { url: `${server.url}/form?k=<SECRET >code</secret>` }, 'url'],
      ['find', { text: '<secret>code</secret>' }, 'text'],
    ] as const) {
      for (const given of [secrets, RunSecrets.none()]) {
        const result = await actWithSecrets(driver, given, tool, input)
        expect(result.ok, tool).toBe(false)
        expect(result.text).toBe(
          `Refused: ${tool}'s ${field} holds a secret placeholder (<secret>…</secret>). A secret is only ever typed into a field with \`type\`; it is never put in a URL, a script or any other input, and is not expanded there.`,
        )
      }
    }
    // The field still holds the first value, and the page never left: the refused ones did nothing.
    const value = await actWithSecrets(driver, RunSecrets.none(), 'execute_javascript', {
      script: '[document.getElementById("code").value, location.search]',
    })
    expect(value).toEqual({ ok: true, text: 'Result: ["c0de-V4lue",""]' })
    await driver.close()
  })
  test('a page on another host that fakes its document location does not receive a secret scoped to the login host', async () => {
    const login = await startPageServer({ pages: { '/': '<!doctype html><title>Login</title><input>' } })
    // The field claims to live in the login host's document: a check made by page-side JavaScript believes it.
    const hostile = await startPageServer({
      pages: {
        '/': `<!doctype html><title>Hostile</title><label>Code <input id="code"></label>
<script>
  const fake = { location: { href: '${login.url}/' }, defaultView: window }
  Object.defineProperty(document.getElementById('code'), 'ownerDocument', { get: () => fake })
</script>`,
      },
    })
    const loginHost = new URL(login.url).host
    const driver = await Driver.open(pool, { startUrl: `${hostile.url}/` })
    await driver.observe()
    const secrets = RunSecrets.from({ pw: { value: 'sc0ped-Value', domains: [loginHost] } })
    const typed = await actWithSecrets(driver, secrets, 'type', {
      ref: driver.ref('textbox', 'Code'),
      text: '<secret>pw</secret>',
    })
    expect(typed.text).toBe(
      `Did not type into textbox 'Code'. Refused: the secret "pw" may only be used on ${loginHost}, and this page is ${new URL(hostile.url).host}.`,
    )
    const value = await actWithSecrets(driver, RunSecrets.none(), 'execute_javascript', {
      script: 'document.getElementById("code").value',
    })
    expect(value).toEqual({ ok: true, text: 'Result: ""' })
    await driver.close()
    await Promise.all([login.close(), hostile.close()])
  })
})

describe('bounds', () => {
  test('a download over the cap is cancelled and not kept, whether its size is declared or not', async () => {
    const runDir = join(scratch, 'run-downloads')
    const driver = await Driver.open(pool, { startUrl: `${server.url}/form`, runDir, maxDownloadBytes: 1000 })
    await driver.observe()
    const notes: string[] = []
    const warnings: { code: string; message: string }[] = []
    for (const name of ['Big declared', 'Big chunked', 'Small']) {
      await driver.act('click', { ref: driver.ref('link', name) })
      const observation = await driver.observe()
      notes.push(...observation.notes)
      warnings.push(...(observation.warnings ?? []))
    }
    // A download that finishes after an observation is told in a later one: on a busy machine the small one may.
    await until(
      async () => {
        const observation = await driver.observe()
        notes.push(...observation.notes)
        warnings.push(...(observation.warnings ?? []))
        return notes.some((note) => note.startsWith('Downloaded "small.bin"'))
      },
      { what: 'the small download to be told' },
    )
    const cancelled = (file: string, size: string) =>
      `The download of "${file}" (${size}) was cancelled: it is over the 1000 B limit (maxDownloadBytes).`
    expect(notes).toContain(cancelled('big.bin', '195.3 KB'))
    // Without a declared size it is cut off as it grows past the cap, or judged whole if it was quicker.
    expect(notes.join('\n')).toMatch(
      /The download of "chunked\.bin" \([\d.]+ KB(?: when cut off)?\) was cancelled: it is over the 1000 B limit/,
    )
    expect(warnings.map((warning) => warning.code)).toEqual(['download_too_large', 'download_too_large'])
    expect(await readdir(join(runDir, 'downloads'))).toEqual(['small.bin'])
    await driver.close()
  })

  test('upload_file takes a name that starts with ".." inside the folder, and still refuses to climb out', async () => {
    const uploadDir = join(scratch, 'uploads')
    await mkdir(uploadDir, { recursive: true })
    await writeFile(join(uploadDir, '..notes.txt'), 'hi')
    await writeFile(join(scratch, 'outside.txt'), 'no')
    const fixtures = await startPageServer({
      pages: { '/': '<!doctype html><title>U</title><label>Attachment <input type="file" id="f"></label>' },
    })
    const driver = await Driver.open(pool, { startUrl: `${fixtures.url}/`, uploadDir })
    await driver.observe()
    const input = driver.ref('button', /Attachment|Choose File/)
    const uploaded = await driver.act('upload_file', { ref: input, paths: ['..notes.txt'] })
    expect(uploaded.ok, uploaded.text).toBe(true)
    expect(uploaded.text).toMatch(/^Uploaded \.\.notes\.txt through /)
    for (const path of ['../outside.txt', '..', './../outside.txt']) {
      const refused = await driver.act('upload_file', { ref: input, paths: [path] })
      expect(refused.ok, path).toBe(false)
    }
    expect(existsSync(join(scratch, 'outside.txt'))).toBe(true)
    await driver.close()
    await fixtures.close()
  })
})
