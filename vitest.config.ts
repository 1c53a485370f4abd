import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway PostgreSQL cluster for the run; each Postgres test file makes its own database in it.
    globalSetup: ['test/support/postgres-cluster.ts'],
    // Browser and HTTP tests each start Chromium; two cores cannot run many at once.
    maxWorkers: 2,
    // The two workers each load the source once and run file after file, instead of a fresh process
    // that loads it all again per file (half the CPU of the many small files). Sound because no module
    // keeps mutable state (DESIGN.md) and every file closes what it opened in its own afterAll.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
