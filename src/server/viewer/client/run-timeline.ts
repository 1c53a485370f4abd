import type { AgentEventOf } from '../../../events/events.ts'
import type { ViewerCommon } from './common.ts'

/** Where the acted-on element is on a step's screenshot, as fractions of the viewport. */
export type TargetBox = NonNullable<AgentEventOf<'tool_call_start'>['box']>
/** A reflection field as it streams, or the model's free text. */
export type ThoughtField = AgentEventOf<'text_delta'>['field']

/** One step's card: its screenshot, and beside it what the model saw, thought and did. */
export interface Step {
  number: number
  item: HTMLElement
  side: HTMLElement
  thought: HTMLElement
  fields: Partial<Record<ThoughtField, HTMLElement>>
  figure?: HTMLElement
  box?: TargetBox
}

/**
 * Browser code: the run page's step timeline, the cards the event renderers
 * write into. Events belong to the step last started (the stream is in
 * order), so `current` is the one place that says which step that is.
 * Served as source text (see assets.ts): self-contained.
 */
export function runTimeline(common: ViewerCommon) {
  const { byId, el } = common
  const steps = new Map<number, Step>()
  let current: Step | undefined
  const list = byId('steps')
  const pending = byId('pending')

  function stepFor(number: number): Step {
    let step = steps.get(number)
    if (!step) {
      const side = el('div')
      const thought = el('dl', { class: 'thought' })
      const item = el(
        'li',
        { class: 'card step', 'data-step': String(number) },
        el('h2', {}, `Step ${number}`),
        side,
      )
      side.append(thought)
      step = { number, item, side, thought, fields: {} }
      steps.set(number, step)
      list.append(item)
    }
    current = step
    return step
  }

  const fieldNames: Record<ThoughtField, string> = {
    evaluation_previous_goal: 'Evaluation',
    memory: 'Memory',
    next_goal: 'Next goal',
    text: 'Text',
  }

  /** The reflection field as it is written: deltas append, the final reflection replaces. */
  function thoughtField(step: Step, field: ThoughtField): HTMLElement {
    let value = step.fields[field]
    if (!value) {
      value = el('dd')
      step.fields[field] = value
      step.thought.append(el('dt', {}, fieldNames[field]), value)
    }
    return value
  }

  /** A line in the current step, or under the timeline before the first step. */
  function note(kind: 'info' | 'warning' | 'error', text: string): void {
    const target = current?.side ?? list
    target.append(el('p', { class: `note ${kind}` }, text))
  }

  /** Outlines the acted-on element on the step's screenshot, when both are known. */
  function markTarget(step: Step): void {
    if (!step.figure || !step.box || step.figure.querySelector('.target')) return
    const mark = el('div', { class: 'target', title: 'The element acted on' })
    mark.style.left = `${step.box.x * 100}%`
    mark.style.top = `${step.box.y * 100}%`
    mark.style.width = `${step.box.width * 100}%`
    mark.style.height = `${step.box.height * 100}%`
    step.figure.append(mark)
  }

  return { list, pending, stepFor, current: () => current, thoughtField, note, markTarget }
}

export type RunTimeline = ReturnType<typeof runTimeline>
