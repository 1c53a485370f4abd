#!/usr/bin/env node
// Runs the built CLI in an installed package (dist/ without src/ beside it),
// and in a checkout only when dist/ was built after every change to src/;
// otherwise the TypeScript source on Node's type stripping, so a checkout
// never silently runs an old build.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { enableCompileCache } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const built = new URL('../dist/cli/main.js', import.meta.url)
const source = fileURLToPath(new URL('../src', import.meta.url))

/** The newest modification time of any file under `folder`. */
function newestChange(folder) {
  let newest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

// The build writes dist/cli/main.js with every other output file, so its time is the build's time.
const runBuilt = existsSync(built) && (!existsSync(source) || statSync(built).mtimeMs > newestChange(source))
// Before the CLI's modules load, so they all come from Node's compile cache (see runCli).
enableCompileCache()
const { runCli } = runBuilt ? await import(built.href) : await import('../src/cli/main.ts')
await runCli()
