import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Webhook } from 'standardwebhooks'
import { sleep } from '../tool.ts'
import { type BackoffOptions, backoffDelayMs } from '../util/backoff.ts'
import { describeError } from '../util/describe-error.ts'
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
  /** Bound on one attempt, answer included (default 10 s). */
  attemptTimeoutMs?: number
  signal?: AbortSignal
}

const defaultBackoff: BackoffOptions = { baseDelayMs: 1_000, maxDelayMs: 60_000 }

/**
 * Delivers one message as the Standard Webhooks specification says: a POST of
 * its JSON with `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, made by the
 * specification's own library). A network failure, a timeout, 408, 429 and
 * 5xx are retried with backoff until `maxTotalMs` has passed; any other answer
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
    const status = await post(url, headers, body, delivery)
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

/** One POST through the rules' lookup (the address checked is the one connected to); redirects are not followed. */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  delivery: WebhookDelivery,
): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const timeoutMs = delivery.attemptTimeoutMs ?? 10_000
  return new Promise<number>((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: delivery.rules.lookupFor(url),
        timeout: timeoutMs,
        ...(delivery.signal ? { signal: delivery.signal } : {}),
      },
      (response: IncomingMessage) => {
        // The answer's body says nothing the delivery needs: drained, so the connection is freed.
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
        response.on('error', reject)
      },
    )
    request.on('timeout', () => request.destroy(new Error(`No answer within ${timeoutMs} ms.`)))
    request.on('error', reject)
    request.end(body)
  })
}
