import type { Reporter, TestModule } from 'vitest/node'
import { missingTestTools, missingToolLine } from './test-tools.ts'

/** How many of the slowest files the report names on every run, so growth is seen the round it happens. */
const slowestCount = 10

/**
 * A reporter beside vitest's own: after every run it names the slowest test files with their times, and
 * every Debian tool that is missing with the tests skipped for it (never a silent skip).
 */
export default class SuiteReport implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = []
    const timed = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: moduleMs(module) }))
      .filter((entry) => entry.ms > 0)
      .sort((a, b) => b.ms - a.ms)
    if (timed.length > 1) {
      lines.push(`Slowest ${Math.min(slowestCount, timed.length)} of ${timed.length} test files:`)
      for (const { file, ms } of timed.slice(0, slowestCount)) {
        lines.push(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`)
      }
    }
    for (const tool of missingTestTools()) lines.push(missingToolLine(tool))
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`)
  }
}

/** A file's own time: collecting it (its imports, its suites) and running its tests and hooks. */
function moduleMs(module: TestModule): number {
  const diagnostic = module.diagnostic()
  return diagnostic.collectDuration + diagnostic.duration
}
