import type { z } from 'zod'
import type { AgentEventOf } from '../../../events/events.ts'
import type { RunDetailSchema } from '../../http/schemas.ts'
import type { ViewerCommon } from './common.ts'

/** A run as `GET /v1/runs/:id` answers it. */
export type RunDetail = z.infer<typeof RunDetailSchema>

/**
 * Browser code: the run page's head (task, status, model, steps, tokens,
 * cost, duration), its Abort button, and the outcome card once the run is
 * done. Served as source text (see assets.ts): self-contained.
 */
export function runHeader(common: ViewerCommon, base: string) {
  const { api, byId, el, errorText, statusBadge, statusFor, duration, cost } = common
  let finished = false
  const statusElement = byId('run-status')
  const abortButton = byId<HTMLButtonElement>('abort')

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

  /** Reads the run again; the stream's events say when, the numbers come from here. */
  async function load(): Promise<void> {
    const response = await api(base)
    if (!response.ok) {
      byId('run-error').textContent = await errorText(response)
      return
    }
    const run = (await response.json()) as RunDetail
    byId('run-task').textContent = run.task
    document.title = `${run.task.slice(0, 60)} · Sextant`
    statusBadge(statusElement, run.status)
    finished = run.status !== 'running'
    abortButton.disabled = finished
    const price = cost(run)
    byId('run-meta').replaceChildren(
      el('span', {}, `Model ${run.model}`),
      el('span', {}, `${run.steps} ${run.steps === 1 ? 'step' : 'steps'}`),
      el('span', {}, `${run.usage.totalTokens.toLocaleString('en')} tokens`),
      price && el('span', {}, `Cost ${price}`),
      el('span', {}, `Duration ${duration(run.createdAt, run.finishedAt)}`),
      el('span', { class: 'hide-narrow' }, `Started ${new Date(run.createdAt).toLocaleString()}`),
    )
  }

  /** The run ended: its status, its outcome, no more Abort. */
  function finish(done: AgentEventOf<'done'>): void {
    finished = true
    abortButton.disabled = true
    const status = statusFor(done.reason)
    statusBadge(statusElement, status)
    const outcome = byId('outcome')
    outcome.className = `card outcome ${status}`
    outcome.replaceChildren(
      el(
        'h2',
        {},
        `${done.result.success ? 'Task done' : 'Task not done'} · ${done.reason}${done.result.outcome ? ` (${done.result.outcome.kind})` : ''}`,
      ),
      el('p', {}, done.result.text),
    )
    if (done.result.data !== undefined)
      outcome.append(el('pre', { class: 'data' }, JSON.stringify(done.result.data, null, 2)))
    outcome.hidden = false
  }

  return { load, finish, isFinished: () => finished }
}

export type RunHeader = ReturnType<typeof runHeader>
