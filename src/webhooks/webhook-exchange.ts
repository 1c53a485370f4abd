import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'

/** The most of a receiver's answer body read: it says nothing a delivery needs, so a little is plenty. */
export const maxAnswerBytes = 16 * 1024

/** Default bound on one attempt, from connecting to the answer's last byte (SEXTANT_WEBHOOK_TIMEOUT_MS). */
export const defaultAttemptTimeoutMs = 10_000

/** An attempt that ran past a bound of its own: its message is what the attempt's record says. */
export class WebhookBoundError extends Error {
  override name = 'WebhookBoundError'
}

export interface ExchangeOptions {
  headers: Record<string, string>
  body: string
  /** The lookup the connection resolves through (the rules' own, so the address checked is the one connected to). */
  lookup: LookupFunction
  /** The whole exchange, headers and body of the answer included, ends within this. */
  deadlineMs: number
  signal?: AbortSignal | undefined
}

/**
 * One POST whose every part is bounded: a receiver that trickles its answer a
 * byte at a time is cut at `deadlineMs` (an idle timeout would never fire),
 * one that answers an endless body is cut after `maxAnswerBytes`. Either
 * rejects with WebhookBoundError and closes the connection, so the receiver
 * holds neither a socket nor the event loop. Redirects are not followed.
 * Resolves with the status once the answer has ended within both bounds.
 */
export function postWithinBounds(url: URL, options: ExchangeOptions): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const { deadlineMs } = options
  return new Promise<number>((resolve, reject) => {
    const request = send(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
      lookup: options.lookup,
      ...(options.signal ? { signal: options.signal } : {}),
    })
    let status: number | undefined
    let settled = false
    let cutBy: WebhookBoundError | undefined
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outcome()
    }
    const fail = (error: unknown) => settle(() => reject(cutBy ?? error))
    const cut = (message: string) => {
      cutBy = new WebhookBoundError(message)
      request.destroy(cutBy)
      // Destroyed after its answer began, a request may tell no error of its own: the cut settles it.
      fail(cutBy)
    }
    const timer = setTimeout(() => {
      const answered = status === undefined ? 'no answer' : `an answer (${status}) whose body had not ended`
      cut(`Cut at the attempt's deadline of ${deadlineMs} ms: ${answered} by then.`)
    }, deadlineMs)
    request.on('response', (response: IncomingMessage) => {
      status = response.statusCode ?? 0
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.byteLength
        if (read > maxAnswerBytes)
          cut(
            `The answer (${status}) went on past ${maxAnswerBytes / 1024} KiB of body; it was not read further.`,
          )
      })
      response.on('end', () => settle(() => resolve(status ?? 0)))
      response.on('error', fail)
      response.on('close', () =>
        fail(new Error('The receiver closed the connection before its answer ended.')),
      )
    })
    request.on('error', fail)
    request.end(options.body)
  })
}
