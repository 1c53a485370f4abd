import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

// Every test worker, and every CLI process a test starts, loads the same dependencies (Playwright, the AI
// SDK, zod, Hono): Node's compile cache keeps their compiled code for the next one, as the CLI keeps its own.
// Set here, before the workers start, so each starts with it (their own modules are cached too).
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'sextant-test-compile-cache')

/**
 * Tests that are slow because of what they test: a fleet of servers, a PostgreSQL restart, a lease
 * left to run out, a sweep of 146 seeded drags over real sortable libraries (2.5 minutes alone), runs on
 * whole applications in processes of their own (test/server/apps/: Node-RED; WordPress and MediaWiki from
 * Debian, a database and a PHP server started per file), and a browser's own start: launched, connected
 * to, headed in a display of its own, killed and launched again, or launched on a profile per run, where
 * every other file shares one browser (a launch and its first page cost about 1.5 CPU-s here).
 * `./dev test` leaves them out (project `slow`); `./dev test:slow` runs them, and .ci/run runs both.
 */
const slow = [
  'test/scale/**/*.test.ts',
  'test/browser/actions/sortable-drag.test.ts',
  'test/server/apps/**/*.test.ts',
  'test/browser/launch/launcher.test.ts',
  'test/browser/launch/identity.test.ts',
  'test/integration/run-agent-browser.test.ts',
  'test/integration/profiles-browser.test.ts',
  'test/server/runs/browser-restart.test.ts',
]

export default defineConfig({
  test: {
    // A missing Debian tool fails CI first; then one throwaway PostgreSQL cluster for the run (each
    // Postgres test file makes its own database in it).
    globalSetup: ['test/support/suite/test-tools-check.ts', 'test/support/postgres-cluster.ts'],
    // Vitest's own report, then the slowest files and any tool whose tests were skipped.
    reporters: ['default', './test/support/suite/suite-report.ts'],
    // Browser and HTTP tests mostly wait (pages, timers, child processes): on 2 cores a whole run used
    // 626 CPU-s in 598 s at 3 workers (779 s at 2, beside one other job), so a third worker fills the
    // waits. More would crowd Chromium's own processes.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // A worker runs file after file in the modules it has loaded (isolate: false). A fresh worker per file
      // loaded Playwright, the AI SDK and the source again each time: whole runs took 599-725 s so (median
      // about 668 s), and 481-694 s this way (median 555 s, eight runs). A file closes what it opens...
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: slow,
          isolate: false,
          // ...and fails a file that leaves a Chromium running for the files after it.
          setupFiles: ['test/support/suite/closed-browsers.ts'],
        },
      },
      // One retry for the fleet tests, as a guard: any-server.test.ts's "owner killed" check once saw 409
      // where 503 was due, when another file's server took the killed owner's port (the relay's landing
      // side now answers 503 owner_unreachable for a run it does not run; relay-target.test.ts).
      { extends: true, test: { name: 'slow', include: slow, retry: 1 } },
    ],
  },
})
