import { styleText } from 'node:util'
import { pageLogLine } from '../../agent/prompt/page-log-line.ts'
import type { AgentEvent, AgentEventOf } from '../../events/events.ts'
import { modelSays, truncate } from '../../util/text.ts'
import { formatCost, formatMs, formatTokens } from '../usage-text.ts'
import { childLine, childPrefix } from './child-lines.ts'

type Style = Parameters<typeof styleText>[0]

export interface TerminalViewOptions {
  /** A terminal: a spinner, colours and line rewriting. Otherwise plain lines for logs and pipes. */
  tty: boolean
  /** Questions and confirmations are asked by a prompt, which shows them itself. */
  prompts?: boolean
  color: boolean
  /** Terminal width, for clipping single-line summaries. */
  columns?: number
}

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const fieldLabels: Record<AgentEventOf<'text_delta'>['field'], string> = {
  text: '',
  evaluation_previous_goal: 'eval',
  memory: 'memory',
  next_goal: 'next',
}

/**
 * Renders a run's events for a person watching: the step, what the model is
 * thinking as it streams, each action and its result, and the outcome. A
 * spinner fills the silence while the model thinks.
 */
export class TerminalView {
  readonly #output: (text: string) => void
  /** Output held back while a prompt owns the terminal. */
  #held: string[] = []
  readonly #options: TerminalViewOptions
  #spinner: NodeJS.Timeout | undefined
  #spinnerFrame = 0
  #spinnerLabel = ''
  #spinnerStarted = 0
  /** The reflection field being streamed on the current line, if any. */
  #openField: AgentEventOf<'text_delta'>['field'] | undefined
  #streamedFields = new Set<string>()
  #paused = false

  constructor(write: (text: string) => void, options: TerminalViewOptions) {
    this.#output = write
    this.#options = options
  }

  render(event: AgentEvent): void {
    if (event.parentRunId !== undefined) {
      this.#child(event)
      return
    }
    switch (event.type) {
      case 'run_started':
        this.#line(
          `${this.#paint('bold', 'sextant')} ${this.#paint('dim', `· ${event.model} · up to ${event.maxTurns} steps`)}`,
        )
        this.#line(`${this.#paint('dim', 'task')} ${event.task}`)
        if (event.startUrl) this.#line(`${this.#paint('dim', 'start')} ${event.startUrl}`)
        this.#startSpinner('starting the browser')
        return
      case 'step_started':
        this.#endField()
        this.#streamedFields.clear()
        this.#line('')
        this.#line(this.#paint(['bold', 'cyan'], `Step ${event.step} of ${event.maxTurns}`))
        this.#startSpinner('looking at the page')
        return
      case 'observation': {
        const notes = event.notes.length ? ` · ${event.notes.join(' · ')}` : ''
        this.#line(
          this.#paint('dim', `  ${event.url} · "${event.title}" · ${plural(event.refs, 'element')}${notes}`),
        )
        const reported = event.pageLog && pageLogLine(event.pageLog)
        if (reported) this.#line(this.#paint('red', `  ${reported}`))
        this.#startSpinner('thinking')
        return
      }
      case 'text_delta':
        this.#delta(event)
        return
      case 'reflection':
        this.#endField()
        for (const field of ['evaluation_previous_goal', 'memory', 'next_goal'] as const) {
          if (!this.#streamedFields.has(field) && event[field]) {
            this.#line(`  ${this.#paint('dim', `${fieldLabels[field]}:`)} ${event[field]}`)
          }
        }
        return
      case 'tool_call_start':
        this.#endField()
        this.#line(
          `  ${this.#paint('yellow', '→')} ${this.#paint('bold', event.tool)} ${this.#clip(compact(event.input))}`,
        )
        this.#startSpinner(`running ${event.tool}`)
        return
      case 'tool_call_result': {
        this.#stopSpinner()
        const mark = event.ok ? this.#paint('green', '✓') : this.#paint('red', '✗')
        this.#line(
          `  ${mark} ${resultPreview(event.result)} ${this.#paint('dim', `(${formatMs(event.durationMs)})`)}`,
        )
        return
      }
      case 'confirmation_required':
        if (this.#options.prompts) return
        this.#endField()
        this.#line(`  ${this.#paint('magenta', '?')} ${event.tool} needs confirmation: ${event.reason}`)
        return
      case 'confirmation_resolved':
        this.#line(
          `  ${event.approved ? this.#paint('green', 'approved') : this.#paint('red', 'denied')} ${this.#paint('dim', `(by ${event.by})`)}`,
        )
        return
      case 'question':
        if (this.#options.prompts) return
        this.#endField()
        this.#line(`  ${this.#paint('magenta', '?')} ${event.question}`)
        return
      case 'answer':
        if (this.#options.prompts) return
        this.#line(`  ${this.#paint('dim', 'answer:')} ${event.answer}`)
        return
      case 'takeover_started':
        this.#endField()
        this.#line(
          `  ${this.#paint('magenta', '✋')} a person has the browser${event.by === 'model' ? ` (the model asked for one. ${modelSays(event.reason ?? '')})` : ''}`,
        )
        return
      case 'takeover_ended':
        this.#line(`  ${this.#paint('dim', `handed back after ${Math.round(event.durationMs / 1000)} s`)}`)
        return
      case 'compaction_start':
        this.#startSpinner(`summarizing older steps (${event.estimatedTokens} tokens)`)
        return
      case 'compaction_end':
        this.#line(
          this.#paint('dim', `  history summarized: ${event.tokensBefore} → ${event.tokensAfter} tokens`),
        )
        return
      case 'warning':
        this.#endField()
        this.#line(`  ${this.#paint('yellow', '!')} ${event.message}`)
        return
      case 'stuck_detected':
        this.#endField()
        this.#line(`  ${this.#paint('yellow', '!')} stuck (${event.kind}): ${event.detail}`)
        return
      case 'recovery':
        this.#line(`  ${this.#paint('yellow', '↻')} ${event.strategy}: ${event.detail}`)
        return
      case 'error':
        this.#endField()
        this.#line(
          `  ${this.#paint('red', 'error')} ${event.message}${event.retryable ? this.#paint('dim', ' (retrying)') : ''}`,
        )
        return
      case 'usage':
        // Per-call usage is for --json and the store; the terminal shows the total at the end.
        return
      case 'done':
        this.#done(event)
        return
      default: {
        const unknown: never = event
        throw new Error(`Unknown event ${JSON.stringify(unknown)}`)
      }
    }
  }

  /** Stops the spinner and frees the line, e.g. for a prompt. */
  pause(): void {
    this.#endField()
    this.#stopSpinner()
    this.#paused = true
  }

  resume(): void {
    this.#paused = false
    const held = this.#held.join('')
    this.#held = []
    if (held) this.#output(held)
  }

  /** One line of the CLI's own, e.g. "aborting…". */
  notice(text: string): void {
    this.#endField()
    this.#line(this.#paint('yellow', text))
  }

  close(): void {
    this.#endField()
    this.#stopSpinner()
  }

  #done(event: AgentEventOf<'done'>): void {
    this.#endField()
    this.#stopSpinner()
    const succeeded = event.reason === 'model_stop' && event.result.success
    const headline =
      event.reason === 'model_stop'
        ? event.result.success
          ? this.#paint(['bold', 'green'], '✔ Done')
          : this.#paint(['bold', 'red'], '✘ Finished without success')
        : event.reason === 'user_abort'
          ? this.#paint(['bold', 'yellow'], '■ Aborted')
          : this.#paint(
              ['bold', 'red'],
              `✘ Stopped (${event.reason}${event.result.outcome ? `: ${event.result.outcome.kind}` : ''})`,
            )
    this.#line('')
    this.#line(
      `${headline} ${this.#paint('dim', `· ${plural(event.steps, 'step')} · ${formatMs(event.durationMs)} · ${formatTokens(event.usage)} · ${formatCost(event.costUsd)}`)}`,
    )
    if (event.result.text) this.#line(succeeded ? event.result.text : this.#paint('dim', event.result.text))
    if (event.result.data !== undefined)
      this.#line(`${this.#paint('dim', 'data:')} ${JSON.stringify(event.result.data, null, 2)}`)
  }

  /** A sub-agent's event: one line, indented under the parent's step that dispatched it. */
  #child(event: AgentEvent): void {
    const line = childLine(event)
    if (line === undefined) return
    this.#endField()
    this.#line(`${this.#paint('dim', childPrefix(event))}${line}`)
    this.#startSpinner('sub-agents at work')
  }

  #delta(event: AgentEventOf<'text_delta'>): void {
    this.#stopSpinner()
    if (this.#openField !== event.field) {
      this.#endField()
      this.#openField = event.field
      this.#streamedFields.add(event.field)
      const label = fieldLabels[event.field]
      this.#write(label ? `  ${this.#paint('dim', `${label}:`)} ` : '  ')
    }
    const text = event.text.replaceAll('\n', '\n  ')
    this.#write(event.field === 'text' ? this.#paint('dim', text) : text)
  }

  #write(text: string): void {
    if (this.#paused) this.#held.push(text)
    else this.#output(text)
  }

  #endField(): void {
    if (this.#openField === undefined) return
    this.#openField = undefined
    this.#write('\n')
  }

  #line(text: string): void {
    this.#stopSpinner()
    this.#write(`${text}\n`)
  }

  #startSpinner(label: string): void {
    if (!this.#options.tty || this.#paused) return
    this.#spinnerLabel = label
    this.#spinnerStarted = Date.now()
    if (this.#spinner) return
    this.#drawSpinner()
    this.#spinner = setInterval(() => this.#drawSpinner(), 80)
  }

  #drawSpinner(): void {
    const frame = spinnerFrames[this.#spinnerFrame++ % spinnerFrames.length]
    const seconds = ((Date.now() - this.#spinnerStarted) / 1000).toFixed(1)
    this.#write(
      `\r\x1b[2K${this.#paint('cyan', frame ?? '')} ${this.#paint('dim', `${this.#spinnerLabel}… ${seconds}s`)}`,
    )
  }

  #stopSpinner(): void {
    if (!this.#spinner) return
    clearInterval(this.#spinner)
    this.#spinner = undefined
    this.#write('\r\x1b[2K')
  }

  #paint(style: Style, text: string): string {
    return this.#options.color ? styleText(style, text, { validateStream: false }) : text
  }

  #clip(text: string): string {
    const width = Math.max(40, (this.#options.columns ?? 120) - 20)
    return truncate(text, width)
  }
}

/** Exit status of a finished run: 0 succeeded, 130 aborted, 1 anything else. */
export function exitCodeFor(event: AgentEventOf<'done'>): number {
  if (event.reason === 'user_abort') return 130
  return event.reason === 'model_stop' && event.result.success ? 0 : 1
}

function compact(input: unknown): string {
  if (input === undefined) return ''
  const text = JSON.stringify(input)
  return text === '{}' ? '' : text
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** A result as it fits the live view: multi-line results (read_page, find) keep their first lines, indented. */
function resultPreview(result: string, maxLines = 6): string {
  const lines = result.trimEnd().split('\n')
  const shown = lines.slice(0, maxLines).join('\n    ')
  return lines.length > maxLines ? `${shown}\n    … ${lines.length - maxLines} more lines` : shown
}
