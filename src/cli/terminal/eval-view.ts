import { styleText } from 'node:util'
import { type Comparison, failuresOf, median, reasonsOf } from '../../eval/eval-report.ts'
import type { EvalEvent, EvalReport } from '../../events/eval-events.ts'
import { addCost } from '../../events/usage.ts'
import { formatCost, formatMs } from '../usage-text.ts'
import { formatTable } from './table.ts'

type Write = (text: string) => void

/**
 * What `sextant eval` shows: a line per finished run, a live progress line
 * (rewritten in place on a terminal), then a table per task and model and
 * the totals.
 */
export class EvalView {
  readonly #write: Write
  readonly #tty: boolean
  readonly #color: boolean
  #progress = ''

  constructor(write: Write, options: { tty: boolean; color: boolean }) {
    this.#write = write
    this.#tty = options.tty
    this.#color = options.color
  }

  render(event: EvalEvent): void {
    switch (event.type) {
      case 'eval_started':
        this.#line(
          `Suite ${event.suite}: ${event.tasks.length} tasks × ${event.models.length} model${event.models.length === 1 ? '' : 's'}${event.repeat > 1 ? ` × ${event.repeat}` : ''} = ${event.total} runs, ${event.concurrency} at a time`,
        )
        return
      case 'eval_run_started':
        return
      case 'eval_run_finished': {
        const { run } = event
        const mark = run.passed ? this.#paint('green', '✓') : this.#paint('red', '✗')
        const attempt = run.attempt > 1 ? ` #${run.attempt}` : ''
        const detail = run.passed ? '' : ` — ${failuresOf(run)[0] ?? run.reason}`
        this.#line(
          `${mark} ${event.taskId}${attempt} ${this.#paint('dim', `(${event.model} · ${run.reason} · ${run.steps} step${run.steps === 1 ? '' : 's'} · ${formatMs(run.durationMs)} · ${formatCost(run.costUsd)} · ${run.runId})`)}${detail}`,
        )
        return
      }
      case 'eval_progress': {
        const eta =
          event.etaMs === undefined || event.done === event.total ? '' : ` · ETA ${formatMs(event.etaMs)}`
        this.#setProgress(
          `[${event.done}/${event.total}] ${event.passing} passing · ${event.tokens.input + event.tokens.output} tokens (${event.tokens.cached} cached) · ${formatCost(event.costUsd)}${eta}`,
        )
        return
      }
      case 'eval_finished':
        this.#clearProgress()
        this.#write(`\n${reportTable(event.report)}`)
        return
      default: {
        const unknown: never = event
        throw new Error(`Unknown eval event ${JSON.stringify(unknown)}`)
      }
    }
  }

  /** A note between the lines (aborting, files written). */
  notice(text: string): void {
    this.#line(text)
  }

  close(): void {
    this.#clearProgress()
  }

  #line(text: string): void {
    this.#clearProgress()
    this.#write(`${text}\n`)
    if (this.#tty && this.#progress) this.#write(this.#progress)
  }

  #setProgress(text: string): void {
    if (!this.#tty) {
      this.#write(`${text}\n`)
      return
    }
    this.#clearProgress()
    this.#progress = text
    this.#write(text)
  }

  #clearProgress(): void {
    if (this.#tty && this.#progress) this.#write('\r\x1b[2K')
  }

  #paint(style: 'green' | 'red' | 'dim', text: string): string {
    return this.#color ? styleText(style, text) : text
  }
}

/** The final table: one row per task and model, then one totals line per model. */
export function reportTable(report: EvalReport): string {
  const rows = report.tasks.map((task) => {
    const runs = task.runs
    const cost = runs.reduce<number | null>((total, run) => addCost(total, run.costUsd), 0)
    return [
      task.id,
      task.model,
      `${task.passed}/${task.total}`,
      String(median(runs.map((run) => run.steps))),
      `${sum(runs, (run) => run.tokens.input)}/${sum(runs, (run) => run.tokens.output)}/${sum(runs, (run) => run.tokens.cached)}`,
      formatCost(cost),
      formatMs(median(runs.map((run) => run.durationMs))),
      reasonsOf(runs),
    ]
  })
  const table = formatTable(
    ['TASK', 'MODEL', 'PASSED', 'STEPS', 'TOKENS IN/OUT/CACHED', 'COST', 'TIME', 'REASONS'],
    rows,
  )
  const totals = report.models.map((model) => {
    const total = report.modelTotals[model]
    if (!total) return ''
    const passK = report.repeat > 1 ? ` · pass^${report.repeat} ${percent(total.passAllK)}` : ''
    return `${model}: ${total.passedRuns}/${total.runs} runs passed · pass@1 ${percent(total.passAt1)}${passK} · ${total.tokens.input} in / ${total.tokens.output} out / ${total.tokens.cached} cached tokens · ${formatCost(total.costUsd)} · ${formatMs(total.durationMs)} of runs`
  })
  return `${table}\n${totals.join('\n')}\n`
}

/** `--compare`: one line per change, regressions first. */
export function comparisonText(changes: Comparison[], previous: string): string {
  if (changes.length === 0) return `No change against ${previous}.\n`
  const order = { regression: 0, improvement: 1, new: 2, missing: 3 }
  const lines = [...changes]
    .sort((a, b) => order[a.kind] - order[b.kind])
    .map((change) => {
      const before = change.before ? `${change.before.passed}/${change.before.total}` : '—'
      const after = change.after ? `${change.after.passed}/${change.after.total}` : '—'
      return `${change.kind.padEnd(11)} ${change.id} (${change.model}): ${before} → ${after}`
    })
  return `Against ${previous}:\n${lines.join('\n')}\n`
}

function sum<T>(items: T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + value(item), 0)
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`
}
