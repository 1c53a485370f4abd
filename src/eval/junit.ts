import type { EvalReport } from '../events/eval-events.ts'
import { failuresOf } from './eval-report.ts'

/**
 * The report as JUnit XML for CI: one testsuite per model, one testcase per
 * run (`<task id>` or `<task id> #k` with --repeat), the run's ending (when
 * not model_stop) and its failed checks as the failure's text.
 */
export function toJUnit(report: EvalReport): string {
  const suites = report.models.map((model) => {
    const tasks = report.tasks.filter((task) => task.model === model)
    const runs = tasks.flatMap((task) => task.runs.map((run) => ({ task, run })))
    const failures = runs.filter(({ run }) => !run.passed).length
    const seconds = runs.reduce((total, { run }) => total + run.durationMs, 0) / 1000
    const cases = runs.map(({ task, run }) => {
      const name = report.repeat > 1 ? `${task.id} #${run.attempt}` : task.id
      const open = `    <testcase classname="${xml(`${report.suite}.${model}`)}" name="${xml(name)}" time="${(run.durationMs / 1000).toFixed(3)}">`
      const props = `      <system-out>${xml(`run ${run.runId} · ${run.reason} · modelSuccess ${run.modelSuccess} · ${run.steps} steps · ${run.tokens.input} in / ${run.tokens.output} out tokens · cost ${run.costUsd ?? 'unknown'}`)}</system-out>`
      if (run.passed) return `${open}\n${props}\n    </testcase>`
      const failures = failuresOf(run)
      return `${open}\n      <failure message="${xml(failures[0] ?? run.reason)}">${xml(failures.join('\n'))}</failure>\n${props}\n    </testcase>`
    })
    return `  <testsuite name="${xml(`${report.suite} · ${model}`)}" tests="${runs.length}" failures="${failures}" errors="0" time="${seconds.toFixed(3)}" timestamp="${xml(report.startedAt)}">\n${cases.join('\n')}\n  </testsuite>`
  })
  const total = report.totals
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(report.suite)}" tests="${total.runs}" failures="${total.runs - total.passedRuns}" time="${(total.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`
}

function xml(text: string): string {
  return (
    text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      // Control characters other than tab and newline are not allowed in XML 1.0.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
      .replaceAll(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  )
}
