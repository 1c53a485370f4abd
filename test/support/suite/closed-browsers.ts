import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll } from 'vitest'
import { chromiumChildren } from '../kill-chromium.ts'
import { sharedBrowserState } from './shared-browser.ts'

// A default-run worker runs file after file (isolate: false): a Chromium one file leaves open would spend the
// machine's CPU under every later file of its worker, unseen. So each file must have closed every Chromium it
// launched, and every context it opened in the worker's shared browser (shared-browser.ts), by the time its own
// afterAll hooks have run (this one, set up first, runs after them).

/** How long a closed browser may take to exit before it counts as left open. */
const exitGraceMs = 5_000

afterAll(async () => {
  const left = sharedBrowserState().contexts
  if (left.length > 0) {
    // Closed here so that the worker's next file starts clean, then reported.
    await Promise.all(left.map((context) => context.close().catch(() => {})))
    throw new Error(
      `This file left ${left.length} context(s) open in the worker's shared browser: close what a file borrows (a pool's close(), or the borrowed browser's close()) in its afterAll`,
    )
  }
  const launched = () => chromiumChildren().filter((pid) => pid !== sharedBrowserState().pid)
  const deadline = Date.now() + exitGraceMs
  let running = launched()
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(100)
    running = launched()
  }
  if (running.length > 0) {
    throw new Error(
      `This file left ${running.length} Chromium process(es) running (pids ${running.join(', ')}): close every browser a file launches in its afterAll, or the rest of its worker's files pay for it`,
    )
  }
}, exitGraceMs + 5_000)
