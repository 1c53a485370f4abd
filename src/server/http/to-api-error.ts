import type { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { ReplayError } from '../../agent/replay/replay-setup.ts'
import { RunLimitError } from '../../agent/run/run-limits.ts'
import { ArtifactsError } from '../../browser/session/artifacts/artifact-settings.ts'
import { ContextSettingsError } from '../../browser/session/context-settings.ts'
import type { Logger } from '../../log.ts'
import { ModelConfigError } from '../../model/model-errors.ts'
import { InvalidCursorError } from '../../store/cursor.ts'
import { ProfileKeyError } from '../../store/profiles/profile-cipher.ts'
import { ProfileKeyRequiredError } from '../../store/profiles/profile-key.ts'
import { WebhookTargetError } from '../../webhooks/webhook-target.ts'
import { WebhookSecretMissingError } from '../run-webhooks.ts'
import { QueueFullError, ShuttingDownError, TooManyRunsError } from '../runs/run-admission.ts'
import { ApiError, errorResponse } from './api-errors.ts'
import type { AppEnv } from './app-env.ts'

/** What any error a route throws is answered as: the API's own errors as they are, known ones mapped, the rest a 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof ModelConfigError) return new ApiError(400, 'invalid_model', error.message)
  if (error instanceof ReplayError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof RunLimitError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof ContextSettingsError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof ArtifactsError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof InvalidCursorError) return new ApiError(400, 'invalid_request', error.message)
  if (error instanceof WebhookTargetError) return new ApiError(400, 'invalid_request', error.message)
  // The server's configuration lacks the key; the message says which to set.
  if (error instanceof WebhookSecretMissingError)
    return new ApiError(400, 'webhook_secret_required', error.message)
  // The servers' configuration, not the request, is at fault: the message says what to set.
  if (error instanceof ProfileKeyRequiredError)
    return new ApiError(409, 'profile_key_required', error.message)
  // Says which key to fix, never a value; the request cannot succeed until the key is right.
  if (error instanceof ProfileKeyError) return new ApiError(500, 'internal', error.message)
  if (error instanceof TooManyRunsError) {
    return new ApiError(429, 'too_many_runs', error.message, {
      'Retry-After': String(error.retryAfterSeconds),
    })
  }
  if (error instanceof QueueFullError) {
    return new ApiError(429, 'queue_full', error.message, { 'Retry-After': String(error.retryAfterSeconds) })
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

/**
 * Answers every failure of `app` as the API's error body: an unknown route
 * 404 (`hint` says where to look), an error the request caused as what it
 * is, and anything else 500, logged.
 */
export function answerErrors(app: Hono<AppEnv>, log: Logger, hint = ''): void {
  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}.${hint}`)),
  )
  app.onError((error, c) => {
    const apiError = toApiError(error)
    if (apiError.status >= 500)
      log.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed')
    return errorResponse(c, apiError)
  })
}
