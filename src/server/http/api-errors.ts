import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Stable, machine-readable error codes of the API (docs/api.md lists each). */
export const apiErrorCodes = [
  'invalid_request',
  'invalid_model',
  'unauthorized',
  'forbidden',
  'host_not_allowed',
  'cross_site',
  'not_found',
  'not_pending',
  'ambiguous_call',
  'not_live',
  'takeover_unavailable',
  'not_taken_over',
  'payload_too_large',
  'unsupported_media_type',
  'too_many_runs',
  'queue_full',
  'profile_key_required',
  'webhook_secret_required',
  'shutting_down',
  'owner_unreachable',
  'internal',
] as const
export type ApiErrorCode = (typeof apiErrorCodes)[number]

/** An error the API answers as `{ error: { code, message } }` with its status. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: ContentfulStatusCode
  readonly code: ApiErrorCode
  readonly headers: Record<string, string>
  constructor(
    status: ContentfulStatusCode,
    code: ApiErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message)
    this.status = status
    this.code = code
    this.headers = headers
  }
}

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
  return c.json({ error: { code: error.code, message: error.message } }, error.status)
}

export function runNotFound(runId: string): ApiError {
  return new ApiError(404, 'not_found', `No run with id "${runId}".`)
}
