import type { EvalReport, EvalRun, EvalTask } from '../events/eval-events.ts'
import { addCost } from '../events/usage.ts'

type Totals = EvalReport['totals']

/** Totals over tasks: pass@1 over runs, pass^K over tasks, tokens, cost (null if any is unknown), time. */
export function totalsOf(tasks: EvalTask[]): Totals {
  const runs = tasks.flatMap((task) => task.runs)
  const passedRuns = runs.filter((run) => run.passed).length
  return {
    runs: runs.length,
    passedRuns,
    tasks: tasks.length,
    passAt1: runs.length === 0 ? 0 : passedRuns / runs.length,
    passAllK:
      tasks.length === 0
        ? 0
        : tasks.filter((task) => task.total > 0 && task.passed === task.total).length / tasks.length,
    tokens: {
      input: sum(runs, (run) => run.tokens.input),
      output: sum(runs, (run) => run.tokens.output),
      cached: sum(runs, (run) => run.tokens.cached),
    },
    costUsd: runs.reduce<number | null>((total, run) => addCost(total, run.costUsd), 0),
    durationMs: sum(runs, (run) => run.durationMs),
  }
}

export function buildReport(input: {
  suite: string
  startedAt: string
  finishedAt: string
  models: string[]
  repeat: number
  tasks: EvalTask[]
}): EvalReport {
  const modelTotals: Record<string, Totals> = {}
  for (const model of input.models) {
    modelTotals[model] = totalsOf(input.tasks.filter((task) => task.model === model))
  }
  return { ...input, totals: totalsOf(input.tasks), modelTotals }
}

export function median(values: number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** Why a run did not pass: its ending when the model did not end it, then each failed check. */
export function failuresOf(run: EvalRun): string[] {
  const ending = run.reason === 'model_stop' ? [] : [`the run ended ${run.reason}, not model_stop`]
  return [...ending, ...run.failedChecks]
}

/** A task's done reasons, counted: "model_stop×2, max_turns". */
export function reasonsOf(runs: EvalRun[]): string {
  const counts = new Map<string, number>()
  for (const run of runs) counts.set(run.reason, (counts.get(run.reason) ?? 0) + 1)
  return [...counts].map(([reason, count]) => (count > 1 ? `${reason}×${count}` : reason)).join(', ')
}

function sum<T>(items: T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + value(item), 0)
}

/** A task's change against an earlier report, matched by task id and model. */
export interface Comparison {
  id: string
  model: string
  kind: 'regression' | 'improvement' | 'new' | 'missing'
  before?: { passed: number; total: number }
  after?: { passed: number; total: number }
}

/** Regressions and improvements in pass rate against `previous`; tasks only in one of them are listed too. */
export function compareReports(previous: EvalReport, current: EvalReport): Comparison[] {
  const key = (task: EvalTask) => `${task.model}\u0000${task.id}`
  const before = new Map(previous.tasks.map((task) => [key(task), task]))
  const after = new Map(current.tasks.map((task) => [key(task), task]))
  const changes: Comparison[] = []
  for (const task of current.tasks) {
    const old = before.get(key(task))
    const now = { passed: task.passed, total: task.total }
    if (!old) {
      changes.push({ id: task.id, model: task.model, kind: 'new', after: now })
      continue
    }
    const rateBefore = old.total === 0 ? 0 : old.passed / old.total
    const rateAfter = task.total === 0 ? 0 : task.passed / task.total
    if (rateAfter === rateBefore) continue
    changes.push({
      id: task.id,
      model: task.model,
      kind: rateAfter < rateBefore ? 'regression' : 'improvement',
      before: { passed: old.passed, total: old.total },
      after: now,
    })
  }
  for (const task of previous.tasks) {
    if (!after.has(key(task)))
      changes.push({
        id: task.id,
        model: task.model,
        kind: 'missing',
        before: { passed: task.passed, total: task.total },
      })
  }
  return changes
}
