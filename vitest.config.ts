import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway PostgreSQL cluster for the run; each Postgres test file makes its own database in it.
    globalSetup: ['test/support/postgres-cluster.ts'],
    // Browser and HTTP tests each start Chromium; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
