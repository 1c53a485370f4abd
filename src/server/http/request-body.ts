import type { Context } from 'hono'
import type { ZodType, z } from 'zod'
import { describeError } from '../../util/describe-error.ts'
import { ApiError } from './api-errors.ts'

/** Bodies larger than this are refused with 413 before they are read in full. */
export const defaultMaxBodyBytes = 64 * 1024

/**
 * Reads a JSON body, bounded in size, and validates it: 415 when it is not
 * JSON, 413 when too large, 400 with zod's message when it does not fit.
 */
export async function readJsonBody<T>(c: Context, schema: ZodType<T>, maxBytes: number): Promise<T> {
  const contentType = c.req.header('content-type') ?? ''
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType.trim())) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      `The body must be JSON with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : 'none'}).`,
    )
  }
  const text = Buffer.from(await readBoundedBody(c.req.raw, maxBytes)).toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new ApiError(400, 'invalid_request', `The body is not valid JSON: ${describeError(error)}`)
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    throw new ApiError(400, 'invalid_request', `Invalid request body: ${describeIssues(parsed.error)}`)
  }
  return parsed.data
}

/** "maxTurns: Too small: expected number to be >=1; task: …", one clause per problem. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ')
}

/**
 * A request's body, read no further than `maxBytes`: 413 at once when its
 * Content-Length says more, else as soon as more arrives (a chunked body), so
 * no more than the bound is ever held. The one bound a route reads with, its
 * handler and the relay to another server alike.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes)
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      // The client closed the connection mid-body: its mistake (a 4xx in the log), not a server failure.
      throw new ApiError(
        400,
        'invalid_request',
        `The request body was not received in full: ${describeError(error)}`,
      )
    })
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The body is larger than ${maxBytes} bytes.`)
}
