import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, expect, test } from 'vitest'

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
let copy: string

/** A stand-in CLI that says which of the two it is. */
const cliSaying = (name: string) =>
  `export async function runCli() { process.stdout.write(${JSON.stringify(name)}) }\n`

const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000)

// A copy of bin/sextant.js beside a stand-in src/ and dist/ whose times the test sets.
beforeEach(async () => {
  copy = await mkdtemp(join(tmpdir(), 'sextant-bin-'))
  await mkdir(join(copy, 'bin'))
  await copyFile(join(root, 'bin/sextant.js'), join(copy, 'bin/sextant.js'))
  await writeFile(join(copy, 'package.json'), '{ "type": "module" }')
  await mkdir(join(copy, 'src/cli'), { recursive: true })
  await mkdir(join(copy, 'src/agent'), { recursive: true })
  await writeFile(join(copy, 'src/cli/main.ts'), cliSaying('source'))
  await writeFile(join(copy, 'src/agent/loop.ts'), 'export {}\n')
  await mkdir(join(copy, 'dist/cli'), { recursive: true })
  await writeFile(join(copy, 'dist/cli/main.js'), cliSaying('dist'))
  await utimes(join(copy, 'src/cli/main.ts'), at(300), at(300))
  await utimes(join(copy, 'src/agent/loop.ts'), at(300), at(300))
  await utimes(join(copy, 'dist/cli/main.js'), at(200), at(200))
})

afterEach(() => rm(copy, { recursive: true, force: true }))

async function whichRuns(): Promise<string> {
  const { stdout } = await run(process.execPath, [join(copy, 'bin/sextant.js')])
  return stdout
}

test('a checkout runs its build only while the build is newer than every source file', async () => {
  expect(await whichRuns()).toBe('dist')
  // One source file, deep in src/, changed after the build: the build is stale.
  await utimes(join(copy, 'src/agent/loop.ts'), at(100), at(100))
  expect(await whichRuns()).toBe('source')
})

test('an installed package (no src/) runs its build; a checkout without a build runs the source', async () => {
  await utimes(join(copy, 'src/agent/loop.ts'), at(100), at(100))
  await rm(join(copy, 'src'), { recursive: true })
  expect(await whichRuns()).toBe('dist')

  await rm(join(copy, 'dist'), { recursive: true })
  await mkdir(join(copy, 'src/cli'), { recursive: true })
  await writeFile(join(copy, 'src/cli/main.ts'), cliSaying('source'))
  expect(await whichRuns()).toBe('source')
})
