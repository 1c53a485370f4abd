// Runs every bench/*.bench.ts in turn, each in its own process so one bench's
// browser or timers cannot skew the next one's figures.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const benchDir = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort()

let failures = 0
for (const file of files) {
  console.log(`\n━━ ${file} ━━`)
  const { status } = spawnSync(process.execPath, [join(benchDir, file)], { stdio: 'inherit' })
  if (status !== 0) failures++
}
process.exit(failures === 0 ? 0 : 1)
