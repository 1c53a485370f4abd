import type { AgentEvent, DoneReason, RunResult, Usage } from '../events/events.ts'

/**
 * What a webhook says, in the Standard Webhooks payload shape: `type`, the
 * `timestamp` of what happened, and `data`. Its id names the run and the
 * event, so every retry, and a second server delivering the same ending,
 * carries one id a receiver can deduplicate on.
 */
export interface WebhookMessage {
  id: string
  type: WebhookType
  timestamp: string
  data: Record<string, unknown>
}

export const webhookTypes = ['run.done', 'run.takeover_started', 'run.confirmation_required'] as const
export type WebhookType = (typeof webhookTypes)[number]

/** One try at delivering a message, as stored and shown in GET /v1/runs/:id. */
export interface WebhookAttempt {
  /** The message's webhook-id. */
  id: string
  type: WebhookType
  /** 1 for the first try. */
  attempt: number
  at: string
  /** The receiver's HTTP status, when it answered. */
  status?: number
  /** Why the attempt failed without an answer (network, timeout, a refused address). */
  error?: string
  durationMs: number
  delivered: boolean
}

/** A run as its ending's webhook tells it. */
export interface EndedRun {
  id: string
  status: string
  reason?: DoneReason | undefined
  result?: RunResult | undefined
  usage?: Usage | undefined
  costUsd?: number | null | undefined
  steps: number
  finishedAt?: string | undefined
}

export function webhookId(runId: string, type: WebhookType, discriminator = ''): string {
  return `msg_${runId}_${type.slice('run.'.length)}${discriminator ? `_${discriminator}` : ''}`
}

/** The message a run's end sends: the caller scrubs `result` of its secrets first. */
export function runDoneMessage(run: EndedRun): WebhookMessage {
  return {
    id: webhookId(run.id, 'run.done'),
    type: 'run.done',
    timestamp: run.finishedAt ?? new Date().toISOString(),
    data: {
      runId: run.id,
      status: run.status,
      ...(run.reason === undefined ? {} : { reason: run.reason }),
      ...(run.result === undefined ? {} : { result: run.result }),
      ...(run.usage === undefined ? {} : { usage: run.usage }),
      ...(run.costUsd === undefined ? {} : { costUsd: run.costUsd }),
      steps: run.steps,
    },
  }
}

/** What a takeover or a confirmation tells the webhook: what the person is needed for, never the call's input. */
export function personMessage(event: AgentEvent): WebhookMessage | undefined {
  if (event.type === 'takeover_started')
    return {
      id: webhookId(event.runId, 'run.takeover_started', String(event.seq)),
      type: 'run.takeover_started',
      timestamp: event.at,
      data: { runId: event.runId, by: event.by, reason: event.reason },
    }
  if (event.type === 'confirmation_required')
    return {
      id: webhookId(event.runId, 'run.confirmation_required', event.callId),
      type: 'run.confirmation_required',
      timestamp: event.at,
      data: {
        runId: event.runId,
        callId: event.callId,
        tool: event.tool,
        reason: event.reason,
        expiresAt: event.expiresAt,
      },
    }
  return undefined
}
