import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A missing Debian tool fails CI first; then one throwaway PostgreSQL cluster for the run (each
    // Postgres test file makes its own database in it).
    globalSetup: ['test/support/suite/test-tools-check.ts', 'test/support/postgres-cluster.ts'],
    // Vitest's own report, then the slowest files and any tool whose tests were skipped.
    reporters: ['default', './test/support/suite/suite-report.ts'],
    // Browser and HTTP tests each start Chromium; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
