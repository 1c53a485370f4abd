import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll } from 'vitest'

// A default-run worker runs file after file (isolate: false): a Chromium one file leaves open would spend the
// machine's CPU under every later file of its worker, unseen. So each file must have closed every Chromium it
// launched by the time its own afterAll hooks have run (this one, set up first, runs after them).

/** How long a closed browser may take to exit before it counts as left open. */
const exitGraceMs = 5_000

/** The Chromium processes this worker launched that are still running, as `pid command` lines. */
function runningChromiums(): string[] {
  let listing = ''
  try {
    listing = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  } catch {
    // ps exits 1 when the worker has no child process at all.
  }
  return listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+\s+chrom/.test(line))
}

afterAll(async () => {
  const deadline = Date.now() + exitGraceMs
  let running = runningChromiums()
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(100)
    running = runningChromiums()
  }
  if (running.length > 0) {
    throw new Error(
      `This file left ${running.length} Chromium process(es) running (${running.join(', ')}): close every browser a file launches in its afterAll, or the rest of its worker's files pay for it`,
    )
  }
}, exitGraceMs + 5_000)
