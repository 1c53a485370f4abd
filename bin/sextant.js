#!/usr/bin/env node
// Runs the built CLI when there is one (npm package), else the TypeScript
// source directly on Node's type stripping (a checkout).
import { existsSync } from 'node:fs'

const built = new URL('../dist/cli/main.js', import.meta.url)
const { runCli } = existsSync(built) ? await import(built.href) : await import('../src/cli/main.ts')
await runCli()
