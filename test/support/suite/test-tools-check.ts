import { missingTestTools, missingToolLine } from './test-tools.ts'

/**
 * Vitest globalSetup, before the cluster's: under CI a missing Debian tool fails the run before any test,
 * since a skip there would hide a missing install step; elsewhere the tests that need it skip, and the
 * suite's report (suite-report.ts) names each missing tool beside what it cost.
 */
export default function setup(): void {
  if (!process.env.CI) return
  const missing = missingTestTools()
  if (missing.length === 0) return
  throw new Error(
    `CI needs every tool the tests use:\n${missing.map((tool) => missingToolLine(tool, 'needs it')).join('\n')}`,
  )
}
