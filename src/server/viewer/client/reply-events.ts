import type { AgentEventOf } from '../../../events/events.ts'
import type { EventRenderers, RunPage } from './event-renderers.ts'

/**
 * Browser code: what the run waits for from a person. A confirmation gets
 * Approve / Deny and a question an answer box, above the steps until the run
 * says it was settled; the step keeps a line for each. Served as source text
 * (see assets.ts): self-contained.
 */
export function replyEvents({ common, base, timeline }: RunPage): EventRenderers {
  const { api, el, errorText } = common

  async function post(path: string, body: unknown, error: HTMLElement): Promise<void> {
    const response = await api(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!response.ok) error.textContent = await errorText(response)
  }

  function confirmationCard(event: AgentEventOf<'confirmation_required'>): HTMLElement {
    // Answered on the run that asked (a sub-agent's own run for its calls): sub-agents share call ids.
    const asker = `/v1/runs/${encodeURIComponent(event.runId)}`
    const path = `${asker}/confirmations/${encodeURIComponent(event.callId)}`
    const approve = el('button', { type: 'button' }, 'Approve')
    const deny = el('button', { type: 'button', class: 'secondary' }, 'Deny')
    const error = el('p', { role: 'alert' })
    const card = el(
      'section',
      { class: 'card pending', 'data-call-id': event.callId, 'aria-label': `Confirm ${event.tool}` },
      el('h2', {}, `Confirm ${event.tool}?`),
      el('p', {}, event.reason),
      el('pre', {}, JSON.stringify(event.input, null, 2)),
      el('div', { class: 'row' }, approve, deny),
      error,
    )
    const reply = (approved: boolean) => {
      for (const button of card.querySelectorAll('button')) button.disabled = true
      void post(path, { approve: approved }, error)
    }
    approve.addEventListener('click', () => reply(true))
    deny.addEventListener('click', () => reply(false))
    return card
  }

  function questionForm(event: AgentEventOf<'question'>): HTMLElement {
    const input = el('input', { type: 'text', 'aria-label': 'Answer' }) as HTMLInputElement
    const error = el('p', { role: 'alert' })
    const form = el(
      'form',
      { class: 'card pending', 'data-question-id': event.questionId },
      el('h2', {}, 'The model asks'),
      el('p', {}, event.question),
      el('div', { class: 'row' }, input, el('button', { type: 'submit' }, 'Send answer')),
      error,
    )
    form.addEventListener('submit', (submit) => {
      submit.preventDefault()
      void post(`${base}/answers/${encodeURIComponent(event.questionId)}`, { answer: input.value }, error)
    })
    return form
  }

  function settle(selector: string): void {
    timeline.pending.querySelector(selector)?.remove()
  }

  return {
    confirmation_required: (event) => {
      timeline.note('info', `Waiting for confirmation of ${event.tool}: ${event.reason}`)
      timeline.pending.append(confirmationCard(event))
    },
    confirmation_resolved: (event) => {
      settle(`[data-call-id="${CSS.escape(event.callId)}"]`)
      timeline.note('info', `${event.approved ? 'Approved' : 'Denied'} (by ${event.by}).`)
    },
    question: (event) => {
      timeline.note('info', `Question: ${event.question}`)
      timeline.pending.append(questionForm(event))
    },
    answer: (event) => {
      settle(`[data-question-id="${CSS.escape(event.questionId)}"]`)
      timeline.note('info', `Answer: ${event.answer}`)
    },
  }
}
