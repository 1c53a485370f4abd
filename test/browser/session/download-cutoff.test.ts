import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type BrowserPool, createBrowserPool } from '../../../src/browser/launch/launcher.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { Driver } from '../helpers/harness.ts'

// A page whose download never ends and declares no size: it must be cut off as it grows past
// maxDownloadBytes, not judged once whole (it never is), and nothing of it may stay on disk,
// neither in the run's folder nor in the browser's own download folder (Playwright's artifacts,
// under TMPDIR, which this file points at a folder of its own to look in).

const maxDownloadBytes = 1024 * 1024
let pool: BrowserPool
let server: PageServer
let scratch: string
let previousTmp: string | undefined
let sent = 0
let hungUp = false

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sextant-download-cutoff-'))
  previousTmp = process.env.TMPDIR
  // Playwright makes its artifacts folder under os.tmpdir() when it launches: here, where the test can see it.
  process.env.TMPDIR = join(scratch, 'tmp')
  await rm(process.env.TMPDIR, { recursive: true, force: true })
  await mkdir(join(scratch, 'tmp'))
  server = await startPageServer({
    pages: {
      '/page': `<!doctype html><title>Files</title>
<a href="/endless.bin" download>Endless</a>
<a href="/small.bin" download>Small</a>`,
    },
    routes: {
      '/endless.bin': (_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="endless.bin"',
        })
        const chunk = Buffer.alloc(64 * 1024, 7)
        const timer = setInterval(() => {
          sent += chunk.length
          response.write(chunk)
        }, 2)
        response.on('close', () => {
          clearInterval(timer)
          hungUp = true
        })
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
  // A browser of its own, launched under the TMPDIR above (the worker's shared one was launched before it).
  pool = createBrowserPool({})
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
  if (previousTmp === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = previousTmp
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

/** Every file under `folder`, recursively, with its path from `folder`. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

test('an endless download without a size is cut off past the cap, told as over the limit, and leaves nothing on disk', async () => {
  const runDir = join(scratch, 'run')
  const driver = await Driver.open(pool, { startUrl: `${server.url}/page`, runDir, maxDownloadBytes })
  try {
    const artifacts = (await readdir(join(scratch, 'tmp'))).filter((name) =>
      name.startsWith('playwright-artifacts-'),
    )
    expect(artifacts.length, 'the browser’s download folder is under this test’s TMPDIR').toBeGreaterThan(0)
    await driver.observe()
    await driver.act('click', { ref: driver.ref('link', 'Endless') })
    const notes: string[] = []
    const warnings: string[] = []
    await until(
      async () => {
        const observation = await driver.observe()
        notes.push(...observation.notes)
        warnings.push(...(observation.warnings ?? []).map((warning) => warning.code))
        return warnings.includes('download_too_large')
      },
      { what: 'the endless download to be told as over the limit', timeoutMs: 15_000 },
    )
    expect(notes.join('\n')).toMatch(
      /The download of "endless\.bin" \([\d.]+ MB when cut off\) was cancelled: it is over the 1\.0 MB limit \(maxDownloadBytes\)\./,
    )
    // The browser hung up: the page's server stopped being read long before it could fill a disk.
    await until(() => hungUp, { what: 'the browser to hang up on the endless download' })
    expect(sent).toBeLessThan(64 * 1024 * 1024)
    // Nothing of it stays: not in the run's folder, not in the browser's own.
    await until(
      async () =>
        (await filesUnder(join(scratch, 'tmp'))).every((file) => !/playwright-artifacts-/.test(file)),
      { what: 'no file left in the browser’s download folder' },
    )
    expect(await filesUnder(join(runDir, 'downloads'))).toEqual([])

    // A download within the cap is saved once, in the run's folder only.
    await driver.act('click', { ref: driver.ref('link', 'Small') })
    await until(
      async () => (await driver.observe()).notes.some((note) => note.startsWith('Downloaded "small.bin"')),
      { what: 'the small download to be told' },
    )
    expect((await filesUnder(join(runDir, 'downloads'))).map((file) => file.slice(runDir.length))).toEqual([
      '/downloads/small.bin',
    ])
    await until(
      async () =>
        (await filesUnder(join(scratch, 'tmp'))).every((file) => !/playwright-artifacts-/.test(file)),
      { what: 'the browser’s own copy of the small download to go' },
    )
  } finally {
    await driver.close()
  }
})
