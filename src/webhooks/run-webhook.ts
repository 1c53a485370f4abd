import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import { deliverWebhook } from './deliver-webhook.ts'
import { personMessage, runDoneMessage, type WebhookAttempt } from './webhook-message.ts'
import { WebhookRules } from './webhook-target.ts'

/** A run asked for a webhook where there is no key to sign it: the message says what to set. */
export class WebhookSecretMissingError extends Error {
  override name = 'WebhookSecretMissingError'
  constructor() {
    super(
      'The run asks for a webhook, and this server has no key to sign it with: set SEXTANT_WEBHOOK_SECRET to a whsec_… key (e.g. "whsec_$(openssl rand -base64 32)").',
    )
  }
}

/** The key and the rules a webhook is delivered under: what a server or the CLI gives every run it starts. */
export type WebhookSigning = Pick<
  WebhookSettings,
  'secret' | 'hosts' | 'deniedOrigins' | 'attemptTimeoutMs' | 'blockPrivateNetworks'
>

/** A library run's webhook: runAgent itself delivers it (a server delivers its runs' own, and records them). */
export interface WebhookSettings {
  /** An http(s) URL, told when the run ends (and when it needs a person). */
  url: string
  /** The `whsec_…` key the messages are signed with. */
  secret: string
  /** The only hosts it may reach; loopback only when named here. */
  hosts?: string[]
  /** `host:port` origins it may never reach (a server passes its own). */
  deniedOrigins?: string[]
  /** Private, link-local and loopback addresses are refused unless `hosts` names them (SEXTANT_BLOCK_PRIVATE). */
  blockPrivateNetworks?: boolean
  /** Told of every attempt (a delivery goes on in the background after `done` is yielded). */
  onAttempt?: (attempt: WebhookAttempt) => void
  /** How long one message is retried (default 10 minutes). */
  maxTotalMs?: number
  /** Bound on one attempt, answer included (SEXTANT_WEBHOOK_TIMEOUT_MS; default 10 s). */
  attemptTimeoutMs?: number
}

/**
 * Watches a run's events and delivers its webhook: `run.done` on the run's
 * own `done`, and the events that need a person. Throws WebhookTargetError at
 * once when the URL is refused, so the run does not start. `status` is the
 * run's status for its `done` reason (the store's naming).
 */
export function runWebhookObserver(
  settings: WebhookSettings,
  runId: string,
  status: (event: AgentEvent & { type: 'done' }) => string,
  log: Logger,
): (event: AgentEvent) => void {
  const { deniedOrigins = [] } = settings
  const rules = new WebhookRules({
    hosts: settings.hosts,
    deniedOrigins: () => deniedOrigins,
    blockPrivateNetworks: settings.blockPrivateNetworks,
  })
  rules.check(settings.url)
  return (event) => {
    const message =
      event.type === 'done' && event.runId === runId
        ? runDoneMessage({ ...event, id: runId, status: status(event), finishedAt: event.at })
        : personMessage(event)
    if (!message) return
    void deliverWebhook({
      url: settings.url,
      secret: settings.secret,
      message,
      rules,
      ...(settings.maxTotalMs === undefined ? {} : { maxTotalMs: settings.maxTotalMs }),
      ...(settings.attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs: settings.attemptTimeoutMs }),
      ...(settings.onAttempt ? { onAttempt: settings.onAttempt } : {}),
    }).then((attempts) => {
      const last = attempts.at(-1)
      if (last && !last.delivered) log.warn({ runId, type: message.type, last }, 'webhook not delivered')
    })
  }
}
