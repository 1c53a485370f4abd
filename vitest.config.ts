import { defineConfig } from 'vitest/config'

/**
 * Tests that are slow because of what they test: a fleet of servers on one PostgreSQL, killed,
 * restarted, with clocks skewed and leases left to run out. `./dev test` leaves them out (project
 * `slow`); `./dev test:slow` runs them, and .ci/run runs both.
 */
const slow = ['test/scale/**/*.test.ts']

export default defineConfig({
  test: {
    // One throwaway PostgreSQL cluster for the run; each Postgres test file makes its own database in it.
    globalSetup: ['test/support/postgres-cluster.ts'],
    // Browser and HTTP tests each start Chromium; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: slow } },
      { extends: true, test: { name: 'slow', include: slow } },
    ],
  },
})
