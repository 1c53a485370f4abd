import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import type { RunStore } from '../store/run-store.ts'
import type { BackoffOptions } from '../util/backoff.ts'
import { deliverWebhook } from '../webhooks/deliver-webhook.ts'
import { WebhookSecretMissingError, type WebhookSigning } from '../webhooks/run-webhook.ts'
import { personMessage, runDoneMessage, type WebhookMessage } from '../webhooks/webhook-message.ts'
import { WebhookRules } from '../webhooks/webhook-target.ts'

export { WebhookSecretMissingError }

export interface RunWebhooksOptions {
  store: RunStore
  /** SEXTANT_WEBHOOK_SECRET; absent: a run asking for a webhook is refused. */
  secret?: string | undefined
  /** SEXTANT_WEBHOOK_HOSTS. */
  hosts?: readonly string[] | undefined
  /** The server's own origins, never a webhook's. */
  deniedOrigins?: () => readonly string[]
  /** SEXTANT_BLOCK_PRIVATE: webhooks obey it as browsers do. */
  blockPrivateNetworks?: boolean
  log: Logger
  /** How long one message is retried (default 10 minutes). */
  maxTotalMs?: number
  backoff?: BackoffOptions
  /** Bound on one attempt, answer included (SEXTANT_WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs?: number | undefined
}

/**
 * The server's webhooks: it refuses, before a run is stored, a webhook it could
 * not deliver; and whichever server ends a run (its own, or the sweep that
 * ends a stopped server's) delivers its `run.done`, reading the URL from the
 * store and recording every attempt there. Deliveries run in the background:
 * a run's slot and its followers never wait for a receiver.
 */
export class RunWebhooks {
  readonly #options: RunWebhooksOptions
  readonly #rules: WebhookRules
  readonly #pending = new Set<Promise<void>>()

  constructor(options: RunWebhooksOptions) {
    this.#options = options
    this.#rules = new WebhookRules({
      hosts: options.hosts,
      ...(options.deniedOrigins ? { deniedOrigins: options.deniedOrigins } : {}),
      blockPrivateNetworks: options.blockPrivateNetworks,
    })
  }

  /** Throws WebhookSecretMissingError or WebhookTargetError when a run may not ask for `url`. */
  check(url: string | undefined): void {
    if (url === undefined) return
    if (this.#options.secret === undefined) throw new WebhookSecretMissingError()
    this.#rules.check(url)
  }

  /** The run ended and is stored: its webhook, when it has one, is told; `scrub` takes its secrets out. */
  ended(runId: string, scrub: <T>(value: T) => T = (value) => value): void {
    this.#track(async () => {
      const { store } = this.#options
      const url = await store.webhooks.targetOf(runId)
      const run = url === undefined ? undefined : await store.getRun(runId)
      if (url === undefined || !run) return
      await this.#deliver(runId, url, scrub(runDoneMessage(run)))
    })
  }

  /** An event of run `runId` (or of a sub-agent's) that needs a person was streamed: the run's webhook is told. */
  needsPerson(runId: string, url: string | undefined, event: AgentEvent): void {
    if (url === undefined) return
    const message = personMessage(event)
    if (message) this.#track(() => this.#deliver(runId, url, message))
  }

  /** How a library run (an eval's) signs and bounds its webhook as this server's runs do; undefined without a key. */
  get signing(): WebhookSigning | undefined {
    const { secret, hosts, deniedOrigins, attemptTimeoutMs, blockPrivateNetworks } = this.#options
    if (secret === undefined) return undefined
    return {
      secret,
      ...(attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs }),
      ...(blockPrivateNetworks ? { blockPrivateNetworks } : {}),
      ...(hosts ? { hosts: [...hosts] } : {}),
      ...(deniedOrigins ? { deniedOrigins: [...deniedOrigins()] } : {}),
    }
  }

  /** Settles once every delivery started so far has ended (tests, and a server closing). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  async #deliver(runId: string, url: string, message: WebhookMessage): Promise<void> {
    const { secret, store, log } = this.#options
    if (secret === undefined) return
    const attempts = await deliverWebhook({
      url,
      secret,
      message,
      rules: this.#rules,
      ...(this.#options.maxTotalMs === undefined ? {} : { maxTotalMs: this.#options.maxTotalMs }),
      ...(this.#options.backoff ? { backoff: this.#options.backoff } : {}),
      ...(this.#options.attemptTimeoutMs === undefined
        ? {}
        : { attemptTimeoutMs: this.#options.attemptTimeoutMs }),
      onAttempt: (attempt) =>
        store.webhooks.record(runId, attempt).catch((error: unknown) => {
          log.warn({ err: error, runId }, 'could not record a webhook attempt')
        }),
    })
    const last = attempts.at(-1)
    if (last && !last.delivered)
      log.warn(
        { runId, type: message.type, attempts: attempts.length, status: last.status, error: last.error },
        'webhook not delivered',
      )
  }

  #track(work: () => Promise<void>): void {
    const promise = work()
      .catch((error: unknown) => this.#options.log.warn({ err: error }, 'a webhook delivery failed'))
      .finally(() => this.#pending.delete(promise))
    this.#pending.add(promise)
  }
}
