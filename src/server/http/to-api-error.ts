import { HTTPException } from 'hono/http-exception'
import { ReplayError } from '../../agent/replay-setup.ts'
import { ModelConfigError } from '../../model/model-errors.ts'
import { InvalidCursorError } from '../../store/cursor.ts'
import { ProfileKeyError } from '../../store/profiles/profile-cipher.ts'
import { ShuttingDownError, TooManyRunsError } from '../runs/run-admission.ts'
import { ApiError } from './api-errors.ts'

/** What any error a route throws is answered as: the API's own errors as they are, known ones mapped, the rest a 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof ModelConfigError) return new ApiError(400, 'invalid_model', error.message)
  if (error instanceof ReplayError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof InvalidCursorError) return new ApiError(400, 'invalid_request', error.message)
  // Says which key to fix, never a value; the request cannot succeed until the key is right.
  if (error instanceof ProfileKeyError) return new ApiError(500, 'internal', error.message)
  if (error instanceof TooManyRunsError) {
    return new ApiError(429, 'too_many_runs', error.message, {
      'Retry-After': String(error.retryAfterSeconds),
    })
  }
  if (error instanceof ShuttingDownError) return new ApiError(503, 'shutting_down', error.message)
  if (error instanceof HTTPException && error.status === 413) {
    return new ApiError(413, 'payload_too_large', error.message || 'The body is too large.')
  }
  if (error instanceof HTTPException && error.status < 500) {
    return new ApiError(400, 'invalid_request', error.message || 'Bad request.')
  }
  return new ApiError(500, 'internal', 'The server failed to handle this request; the log has the details.')
}
