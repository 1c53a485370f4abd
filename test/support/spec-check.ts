import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/** A folder inside the repo (so a spec resolves @playwright/test from its node_modules) holding `spec`. */
export function specFolder(spec: string): { dir: string; file: string; remove(): void } {
  const dir = mkdtempSync(join(repoRoot, '.spec-check-'))
  const file = join(dir, 'exported.spec.ts')
  writeFileSync(file, spec)
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** What the real tsc (strict) says of exported specs in `dir`, one program for all: '' when they compile. */
export function tscOutput(dir: string, ...files: [string, ...string[]]): string {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        target: 'es2022',
        skipLibCheck: true,
        types: ['node'],
      },
      files,
    }),
  )
  const tsc = spawnSync(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], {
    cwd: dir,
    encoding: 'utf8',
  })
  return `${tsc.stdout}${tsc.stderr}${tsc.status === 0 ? '' : `(tsc exited ${tsc.status})`}`
}

/**
 * Runs `playwright test` on the spec in `folder` (one worker, a line reporter), and on `more` specs
 * in it (one runner and one browser for all), asynchronously: the pages they visit are often served
 * by the calling process, which must keep answering meanwhile.
 */
export function playwrightTest(
  folder: { dir: string; file: string },
  env: NodeJS.ProcessEnv,
  more: string[] = [],
): Promise<{ output: string; status: number | null }> {
  const config = join(folder.dir, 'playwright.config.mjs')
  writeFileSync(
    config,
    "export default { testDir: '.', outputDir: './results', timeout: 20000, workers: 1, reporter: 'line' }\n",
  )
  return new Promise((resolve) => {
    const child = spawn(
      join(repoRoot, 'node_modules/.bin/playwright'),
      ['test', folder.file, ...more, '--config', config],
      {
        cwd: folder.dir,
        env,
      },
    )
    let output = ''
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8')
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('close', (status) => resolve({ output, status }))
  })
}
