import type { ViewerCommon } from './client-common.ts'

/**
 * Browser code of a run's page: follows the run's events live (or replays a
 * finished run) into a step timeline, and offers its controls: approve or
 * deny a confirmation, answer a question, abort. Served as source text (see
 * assets.ts): it must stay self-contained, and reaches the shared helpers
 * only through `common`.
 */
export function runPage(common: ViewerCommon): void {
  const { api, byId, el, errorText, statusBadge, statusFor, duration, cost } = common
  const runId = document.body.dataset.runId ?? ''
  const base = `/v1/runs/${encodeURIComponent(runId)}`

  type RunEvent = { seq: number; type: string; [key: string]: unknown }
  interface Step {
    item: HTMLElement
    side: HTMLElement
    thought: Record<string, HTMLElement>
    figure?: HTMLElement
    box?: { x: number; y: number; width: number; height: number }
  }

  const steps = new Map<number, Step>()
  let current: Step | undefined
  let finished = false
  const statusBadgeElement = byId('run-status')
  const abortButton = byId<HTMLButtonElement>('abort')
  const timeline = byId('steps')
  const pending = byId('pending')

  abortButton.addEventListener('click', () => void abort())

  async function abort(): Promise<void> {
    abortButton.disabled = true
    try {
      const response = await api(base, { method: 'DELETE' })
      if (!response.ok) byId('run-error').textContent = await errorText(response)
    } catch {
      abortButton.disabled = finished
    }
  }

  async function loadRun(): Promise<void> {
    const response = await api(base)
    if (!response.ok) {
      byId('run-error').textContent = await errorText(response)
      return
    }
    const run = (await response.json()) as {
      task: string
      model: string
      status: string
      steps: number
      createdAt: string
      finishedAt?: string
      usage: { totalTokens: number }
      result?: { success: boolean; text: string }
      costUsd?: number | null
    }
    byId('run-task').textContent = run.task
    document.title = `${run.task.slice(0, 60)} · Sextant`
    statusBadge(statusBadgeElement, run.status)
    finished = run.status !== 'running'
    abortButton.disabled = finished
    const price = cost(run)
    byId('run-meta').replaceChildren(
      el('span', {}, `Model ${run.model}`),
      el('span', {}, `${run.steps} steps`),
      el('span', {}, `${run.usage.totalTokens.toLocaleString('en')} tokens`),
      price && el('span', {}, `Cost ${price}`),
      el('span', {}, `Duration ${duration(run.createdAt, run.finishedAt)}`),
      el('span', { class: 'hide-narrow' }, `Started ${new Date(run.createdAt).toLocaleString()}`),
    )
  }

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
      step = { item, side, thought: { list: thought } }
      steps.set(number, step)
      timeline.append(item)
    }
    current = step
    return step
  }

  const fieldNames: Record<string, string> = {
    evaluation_previous_goal: 'Evaluation',
    memory: 'Memory',
    next_goal: 'Next goal',
    text: 'Text',
  }

  /** The reflection field as it is written: deltas append, the final reflection replaces. */
  function thoughtField(step: Step, field: string): HTMLElement {
    let value = step.thought[field]
    if (!value) {
      value = el('dd')
      step.thought[field] = value
      step.thought.list?.append(el('dt', {}, fieldNames[field] ?? field), value)
    }
    return value
  }

  function note(kind: string, text: string): void {
    const target = current?.side ?? timeline
    target.append(el('p', { class: `note ${kind}` }, text))
  }

  async function showScreenshot(step: Step, number: number, url: string): Promise<void> {
    const image = el('img', { alt: `Step ${number} screenshot`, width: '1280', height: '800' })
    const figure = el('figure', { class: 'shot' }, image)
    step.figure = figure
    step.item.insertBefore(figure, step.side)
    markTarget(step)
    try {
      const response = await api(url)
      if (!response.ok) throw new Error(await errorText(response))
      image.setAttribute('src', URL.createObjectURL(await response.blob()))
    } catch {
      figure.replaceChildren(el('p', { class: 'note' }, 'The screenshot could not be loaded.'))
    }
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

  function pageViewButton(step: Step, number: number): HTMLElement {
    const details = el('details', { class: 'page-view' }, el('summary', {}, 'Page view'))
    details.addEventListener(
      'toggle',
      () => {
        void (async () => {
          const text = el('pre', {}, 'Loading…')
          details.append(text)
          try {
            const response = await api(`${base}/steps/${number}/page-view`)
            text.textContent = response.ok ? await response.text() : await errorText(response)
          } catch {
            text.textContent = 'The page view could not be loaded.'
          }
        })()
      },
      { once: true },
    )
    step.side.append(details)
    return details
  }

  function confirmation(event: RunEvent): void {
    const callId = String(event.callId)
    const reply = (approve: boolean) => async () => {
      for (const button of card.querySelectorAll('button')) button.disabled = true
      // Answered on the run that asked (a sub-agent's own run for its calls): sub-agents share call ids.
      const asker = `/v1/runs/${encodeURIComponent(String(event.runId))}`
      const response = await api(`${asker}/confirmations/${encodeURIComponent(callId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approve }),
      })
      if (!response.ok) error.textContent = await errorText(response)
    }
    const approve = el('button', { type: 'button' }, 'Approve')
    const deny = el('button', { type: 'button', class: 'secondary' }, 'Deny')
    const error = el('p', { role: 'alert' })
    approve.addEventListener('click', () => void reply(true)())
    deny.addEventListener('click', () => void reply(false)())
    const card = el(
      'section',
      { class: 'card pending', 'data-call-id': callId, 'aria-label': `Confirm ${String(event.tool)}` },
      el('h2', {}, `Confirm ${String(event.tool)}?`),
      el('p', {}, String(event.reason ?? '')),
      el('pre', {}, JSON.stringify(event.input, null, 2)),
      el('div', { class: 'row' }, approve, deny),
      error,
    )
    pending.append(card)
  }

  function question(event: RunEvent): void {
    const questionId = String(event.questionId)
    const input = el('input', { type: 'text', 'aria-label': 'Answer' }) as HTMLInputElement
    const error = el('p', { role: 'alert' })
    const form = el(
      'form',
      { class: 'card pending', 'data-question-id': questionId },
      el('h2', {}, 'The model asks'),
      el('p', {}, String(event.question)),
      el('div', { class: 'row' }, input, el('button', { type: 'submit' }, 'Send answer')),
      error,
    )
    form.addEventListener('submit', (submit) => {
      submit.preventDefault()
      void (async () => {
        const response = await api(`${base}/answers/${encodeURIComponent(questionId)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answer: input.value }),
        })
        if (!response.ok) error.textContent = await errorText(response)
      })()
    })
    pending.append(form)
  }

  function settle(selector: string): void {
    pending.querySelector(selector)?.remove()
  }

  function show(event: RunEvent): void {
    switch (event.type) {
      case 'step_started':
        stepFor(Number(event.step))
        // The header's steps and duration follow the run; the replay of a finished run needs no refresh.
        if (!finished) void loadRun().catch(() => {})
        return
      case 'observation': {
        const step = current
        if (!step) return
        const number = Number(step.item.dataset.step)
        step.side.prepend(
          el('p', { class: 'muted' }, `${String(event.title || 'Untitled')} — ${String(event.url)}`),
        )
        if (typeof event.screenshot === 'string' && !step.figure)
          void showScreenshot(step, number, event.screenshot)
        if (typeof event.screenshot === 'string' && !step.side.querySelector('details'))
          pageViewButton(step, number)
        return
      }
      case 'text_delta':
        if (current) thoughtField(current, String(event.field)).append(String(event.text))
        return
      case 'reflection':
        if (!current) return
        for (const field of ['evaluation_previous_goal', 'memory', 'next_goal'])
          thoughtField(current, field).textContent = String(event[field] ?? '')
        return
      case 'tool_call_start': {
        if (!current) return
        const box = event.box as Step['box']
        if (box) {
          current.box = box
          markTarget(current)
        }
        current.side.append(
          el(
            'div',
            { class: 'action', 'data-call-id': String(event.callId) },
            el('code', {}, `${String(event.tool)} ${JSON.stringify(event.input)}`),
          ),
        )
        return
      }
      case 'tool_call_result': {
        const action = current?.side.querySelector(`[data-call-id="${CSS.escape(String(event.callId))}"]`)
        const target = action ?? current?.side ?? timeline
        target.append(
          el(
            'div',
            { class: `result ${event.ok ? 'ok' : 'failed'}` },
            `${event.ok ? '✓' : '✗'} ${String(event.result)} (${Number(event.durationMs)} ms)`,
          ),
        )
        return
      }
      case 'confirmation_required':
        note('info', `Waiting for confirmation of ${String(event.tool)}: ${String(event.reason)}`)
        confirmation(event)
        return
      case 'confirmation_resolved':
        settle(`[data-call-id="${CSS.escape(String(event.callId))}"]`)
        note('info', `${event.approved ? 'Approved' : 'Denied'} (by ${String(event.by)}).`)
        return
      case 'question':
        note('info', `Question: ${String(event.question)}`)
        question(event)
        return
      case 'answer':
        settle(`[data-question-id="${CSS.escape(String(event.questionId))}"]`)
        note('info', `Answer: ${String(event.answer)}`)
        return
      case 'warning':
        note('warning', `Warning (${String(event.code)}): ${String(event.message)}`)
        return
      case 'stuck_detected':
        note('warning', `Stuck (${String(event.kind)}): ${String(event.detail)}`)
        return
      case 'recovery':
        note('info', `Recovery: ${String(event.strategy)}${event.detail ? ` — ${String(event.detail)}` : ''}`)
        return
      case 'compaction_start':
        note('info', 'Summarizing older steps…')
        return
      case 'compaction_end':
        note('info', `Summarized: ${Number(event.tokensBefore)} → ${Number(event.tokensAfter)} tokens.`)
        return
      case 'error':
        note('error', `${event.retryable ? 'Error (retrying)' : 'Error'}: ${String(event.message)}`)
        return
      case 'done': {
        finished = true
        abortButton.disabled = true
        const status = statusFor(String(event.reason))
        statusBadge(statusBadgeElement, status)
        pending.replaceChildren()
        const result = event.result as { success: boolean; text: string }
        const outcome = byId('outcome')
        outcome.className = `card outcome ${status}`
        outcome.replaceChildren(
          el('h2', {}, `${result.success ? 'Task done' : 'Task not done'} · ${String(event.reason)}`),
          el('p', {}, result.text),
        )
        outcome.hidden = false
        void loadRun().catch(() => {})
        return
      }
      default:
        return
    }
  }

  common.whenAuthorized(() => {
    void (async () => {
      try {
        await loadRun()
      } catch {
        return
      }
      await common.followEvents(`${base}/events`, show, new AbortController().signal)
    })()
  })
}
