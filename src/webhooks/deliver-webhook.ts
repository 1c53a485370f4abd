import { Webhook } from 'standardwebhooks'
import { sleep } from '../tool.ts'
import { type BackoffOptions, backoffDelayMs } from '../util/backoff.ts'
import { describeError } from '../util/describe-error.ts'
import { defaultAttemptTimeoutMs, postWithinBounds } from './webhook-exchange.ts'
import type { WebhookAttempt, WebhookMessage } from './webhook-message.ts'
import { type WebhookRules, WebhookTargetError } from './webhook-target.ts'

export interface WebhookDelivery {
  url: string
  /** The `whsec_…` key the message is signed with. */
  secret: string
  message: WebhookMessage
  rules: WebhookRules
  /** Told of each attempt as it ends (the store records it); its failure never stops the delivery. */
  onAttempt?: (attempt: WebhookAttempt) => void | Promise<void>
  /** How long retries go on, from the first attempt (default 10 minutes). */
  maxTotalMs?: number
  backoff?: BackoffOptions
  /** Bound on one attempt, from connecting to the answer's last byte (default 10 s); see webhook-exchange.ts. */
  attemptTimeoutMs?: number
  signal?: AbortSignal
}

const defaultBackoff: BackoffOptions = { baseDelayMs: 1_000, maxDelayMs: 60_000 }

/**
 * Delivers one message as the Standard Webhooks specification says: a POST of
 * its JSON with `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, made by the
 * specification's own library). A network failure, an answer cut at a bound
 * (the attempt's deadline, the body's size), 408, 429 and 5xx are retried with backoff until `maxTotalMs` has passed; any other answer
 * ends the delivery, as does a target the rules refuse. Never throws: every
 * attempt is returned (and told to `onAttempt`).
 */
export async function deliverWebhook(delivery: WebhookDelivery): Promise<WebhookAttempt[]> {
  const signer = new Webhook(delivery.secret)
  const body = JSON.stringify({
    type: delivery.message.type,
    timestamp: delivery.message.timestamp,
    data: delivery.message.data,
  })
  const started = Date.now()
  const deadline = started + (delivery.maxTotalMs ?? 600_000)
  const attempts: WebhookAttempt[] = []
  for (let number = 1; ; number++) {
    const attempt = await attemptOnce(delivery, signer, body, number)
    attempts.push(attempt)
    try {
      await delivery.onAttempt?.(attempt)
    } catch {
      // Recording an attempt is the caller's concern; the delivery goes on.
    }
    if (attempt.delivered || !retryable(attempt)) return attempts
    const wait = backoffDelayMs(number, delivery.backoff ?? defaultBackoff)
    if (Date.now() + wait >= deadline) return attempts
    try {
      await sleep(wait, delivery.signal ?? new AbortController().signal)
    } catch {
      return attempts
    }
  }
}

/** Failures worth another try: no answer (but not a refusal), or an answer that says "later". */
function retryable(attempt: WebhookAttempt): boolean {
  if (attempt.status === undefined) return !attempt.error?.startsWith(refusedPrefix)
  return attempt.status >= 500 || attempt.status === 408 || attempt.status === 429
}

const refusedPrefix = 'Refused: '

async function attemptOnce(
  delivery: WebhookDelivery,
  signer: Webhook,
  body: string,
  number: number,
): Promise<WebhookAttempt> {
  const at = new Date()
  const base = { id: delivery.message.id, type: delivery.message.type, attempt: number, at: at.toISOString() }
  let url: URL
  try {
    url = delivery.rules.check(delivery.url)
  } catch (error) {
    return { ...base, error: `${refusedPrefix}${describeError(error)}`, durationMs: 0, delivered: false }
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Sextant-Webhooks',
    'webhook-id': delivery.message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(delivery.message.id, at, body),
  }
  try {
    const status = await postWithinBounds(url, {
      headers,
      body,
      lookup: delivery.rules.lookupFor(url),
      deadlineMs: delivery.attemptTimeoutMs ?? defaultAttemptTimeoutMs,
      signal: delivery.signal,
    })
    const durationMs = Date.now() - at.getTime()
    return { ...base, status, durationMs, delivered: status >= 200 && status < 300 }
  } catch (error) {
    const durationMs = Date.now() - at.getTime()
    const refused = error instanceof WebhookTargetError
    return {
      ...base,
      error: `${refused ? refusedPrefix : ''}${describeError(error)}`,
      durationMs,
      delivered: false,
    }
  }
}
