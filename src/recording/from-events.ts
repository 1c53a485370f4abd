import type { AgentEvent, AgentEventOf } from '../events/events.ts'
import type { PageLog } from '../events/page-log.ts'
import { maskedText } from '../redact.ts'
import {
  type ElementTarget,
  type Expectation,
  type RecordedStep,
  type Recording,
  recordingVersion,
} from './schema.ts'
import { templatizeDeep } from './variables.ts'

/**
 * The recording of a run, made from its events alone (live, stored, or read
 * back from `--json`): every call with its input, its target, the URLs around
 * it and what it achieved. Failed calls and calls a later one undid are kept
 * but marked `skip`, so a replay passes over them.
 */
export function recordingOf(events: Iterable<AgentEvent>): Recording {
  let task = ''
  let startUrl: string | undefined
  let runId: string | undefined
  let variables: Record<string, string> = {}
  let output: Record<string, unknown> | undefined
  let instructions: string | undefined
  let browser: Record<string, unknown> | undefined
  let secrets: string[] = []
  let step = 0
  let goal: string | undefined
  let url: string | undefined
  const open = new Map<string, { start: AgentEventOf<'tool_call_start'>; step: RecordedStep }>()
  const steps: RecordedStep[] = []
  /** What the page reported after each step (the next observation's page log), by the step's index. */
  const pageLogs = new Map<number, PageLog>()
  let masked = 0

  for (const event of events) {
    switch (event.type) {
      case 'run_started':
        task = event.task
        startUrl = event.startUrl
        runId = event.runId
        variables = event.variables ?? {}
        output = event.output
        instructions = event.instructions
        browser = event.browser
        secrets = event.secrets ?? []
        url = event.startUrl
        break
      case 'step_started':
        step = event.step
        goal = undefined
        break
      case 'reflection':
        goal = event.next_goal || undefined
        break
      case 'observation':
        url = event.url
        if (event.pageLog && steps.length > 0) pageLogs.set(steps.length - 1, event.pageLog)
        break
      case 'tool_call_start': {
        const { ref: _ref, ...rest } = asRecord(event.input)
        const input: Record<string, unknown> = {}
        // A value the events had to mask (text typed into a password field) must be given again.
        for (const [key, value] of Object.entries(rest))
          input[key] = value === maskedText ? `{{masked_${++masked}}}` : value
        // A drag's drop element is kept as its durable description: the ref meant something in this run only.
        if (event.dropTarget && typeof input.to === 'string') input.to = event.dropTarget
        const recorded: RecordedStep = {
          step: Math.max(1, step),
          ...(goal ? { goal } : {}),
          tool: event.tool,
          input,
          ...(event.target ? { target: event.target } : {}),
          ...(event.offset ? { offset: event.offset } : {}),
          // A `drag_at`'s end element; a drag's is in its `to`.
          ...(event.dropTarget && event.dropOffset
            ? { drop: { target: event.dropTarget, offset: event.dropOffset } }
            : {}),
          ...(url ? { urlBefore: url } : {}),
        }
        open.set(event.callId, { start: event, step: recorded })
        steps.push(recorded)
        break
      }
      case 'tool_call_result': {
        const call = open.get(event.callId)
        if (!call) break
        open.delete(event.callId)
        const recorded = call.step
        if (!event.ok) recorded.skip = 'failed'
        if (event.ok && event.secrets) recorded.secrets = event.secrets
        if (event.outcome) {
          recorded.urlAfter = event.outcome.url
          url = event.outcome.url
          const expect = expectationsOf(recorded, event.outcome)
          if (expect.length > 0) recorded.expect = expect
        }
        break
      }
      default:
        break
    }
  }
  // A call that never returned (the run was aborted during it) did not happen as far as a replay knows.
  for (const { step: recorded } of open.values()) recorded.skip = 'failed'
  markUndone(steps)
  return {
    version: recordingVersion,
    task,
    ...(startUrl ? { startUrl } : {}),
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(runId ? { runId } : {}),
    ...(instructions === undefined ? {} : { instructions }),
    ...(browser === undefined ? {} : { browser }),
    ...(output ? { output } : {}),
    ...(secrets.length > 0 ? { secrets } : {}),
    // Kept as the page wrote it: a page's words are no template.
    steps: templatizeDeep(steps, variables).map((recorded, index) => {
      const pageLog = pageLogs.get(index)
      return pageLog ? { ...recorded, pageLog } : recorded
    }),
  }
}

function expectationsOf(
  step: RecordedStep,
  outcome: NonNullable<AgentEventOf<'tool_call_result'>['outcome']>,
): Expectation[] {
  const expect: Expectation[] = []
  if (step.urlBefore !== undefined && outcome.url !== step.urlBefore && step.tool !== 'done')
    expect.push({ kind: 'url', url: outcome.url })
  if (outcome.targetGone) expect.push({ kind: 'gone' })
  if (step.tool === 'type' && typeof step.input.text === 'string' && !isHidden(step.input.text)) {
    if (step.input.submit === true) {
      if (outcome.textShown) expect.push({ kind: 'appeared', text: step.input.text })
    } else if (step.input.clear !== false) expect.push({ kind: 'value', value: step.input.text })
  }
  return expect
}

/** Secrets and masked values are not checked against the page: the check would need their value. */
function isHidden(text: string): boolean {
  return text.includes('<secret>') || text.includes('{{masked_')
}

/**
 * Calls a later call took back: a `go_back` to where a navigation started,
 * and a checkbox clicked twice in a row. Both calls of each pair are skipped.
 */
function markUndone(steps: RecordedStep[]): void {
  const live = () => steps.filter((step) => step.skip === undefined)
  let changed = true
  while (changed) {
    changed = false
    const kept = live()
    for (let i = 1; i < kept.length; i++) {
      const before = kept[i - 1]
      const after = kept[i]
      if (!before || !after) continue
      if (undoes(before, after)) {
        before.skip = 'undone'
        after.skip = 'undone'
        changed = true
        break
      }
    }
  }
}

function undoes(before: RecordedStep, after: RecordedStep): boolean {
  if (
    after.tool === 'go_back' &&
    before.urlBefore !== undefined &&
    before.urlAfter !== before.urlBefore &&
    after.urlAfter === before.urlBefore
  )
    return true
  const toggles = new Set(['checkbox', 'switch', 'radio'])
  return (
    before.tool === 'click' &&
    after.tool === 'click' &&
    before.target !== undefined &&
    after.target !== undefined &&
    toggles.has(before.target.role) &&
    sameTarget(before.target, after.target)
  )
}

function sameTarget(a: ElementTarget, b: ElementTarget): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
