import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { secretsFromRequest } from '../../eval/eval-secrets.ts'
import { type EvalStreamEvent, runEval, unfilledPlaceholders } from '../../eval/run-eval.ts'
import { parseSuite, SuiteError, SuiteSchema } from '../../eval/suite.ts'
import { EvalEventSchema } from '../../events/eval-events.ts'
import { AgentEventSchema } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import { ApiError } from '../api-errors.ts'
import type { AppEnv } from '../app-env.ts'
import { readJsonBody } from '../request-body.ts'
import { bodyErrors, errorResponse, jsonBody, schemaRef } from '../route-docs.ts'
import type { RunManager } from '../run-manager.ts'
import { EvalRequestSchema } from '../schemas.ts'
import { sseResponse } from '../sse.ts'

export interface EvalRoutesOptions {
  manager: RunManager
  maxBodyBytes: number
  heartbeatMs?: number
  log: Logger
}

/**
 * POST /v1/evals: runs a suite and streams its progress as SSE — every run's
 * events (same vocabulary as /v1/runs, each with its runId) and the eval's
 * `eval_*` events, ending with `eval_finished` and the report. Each run is
 * stored, so GET /v1/runs/:id opens it. The eval stops when the client goes
 * away: it has no other handle.
 */
export function evalRoutes({ manager, maxBodyBytes, heartbeatMs, log }: EvalRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  routes.post(
    '/',
    describeRoute({
      summary: 'Run a task suite and stream its progress',
      description:
        'Server-Sent Events: every run’s events (as on /v1/runs, each with its runId) and the eval’s own (`id:` counts the frames), ending with `eval_finished` and the report (docs/eval.md). Each run is stored: GET /v1/runs/{id} opens it. The eval stops when the client disconnects.',
      requestBody: jsonBody(EvalRequestSchema),
      responses: {
        '200': {
          description: 'The eval’s progress',
          content: {
            'text/event-stream': {
              schema: { oneOf: [schemaRef(AgentEventSchema), schemaRef(EvalEventSchema)] },
            },
          },
        },
        ...bodyErrors(maxBodyBytes),
        '400': errorResponse(
          'The body does not fit its schema or is not JSON; the suite is not valid, leaves a placeholder unfilled, or names an environment variable for a secret (give values in `secrets`); the secrets are not valid; concurrency is over SEXTANT_MAX_RUNS; a model is unknown; or the server has no browser.',
        ),
      },
    }),
    async (c) => {
      const request = await readJsonBody(c, EvalRequestSchema, maxBodyBytes)
      const suite = toSuite(request.suite)
      const problems = [
        ...unfilledPlaceholders(suite, undefined).map((problem) =>
          problem.replace(
            ': run with --serve-fixtures',
            ', which only `sextant eval --serve-fixtures` serves',
          ),
        ),
      ]
      const secrets = secretsFromRequest(suite, request)
      if (!secrets.ok) problems.push(...secrets.problems)
      if (problems.length > 0 || !secrets.ok) throw new ApiError(400, 'invalid_request', problems.join('; '))
      const concurrency = request.concurrency ?? 1
      if (concurrency > manager.maxRuns) {
        throw new ApiError(
          400,
          'invalid_request',
          `concurrency ${concurrency} is over this server's limit of ${manager.maxRuns} runs at once (SEXTANT_MAX_RUNS).`,
        )
      }
      // A bad model name is a 400 now, not a failed run later.
      const models = (request.models ?? [undefined]).map((name) => {
        const resolved = manager.resolveModel(name)
        return { name: resolved.name, model: resolved.model }
      })
      const browser = manager.browser
      if (!browser)
        throw new ApiError(400, 'invalid_request', 'This server runs without a browser; evals need one.')
      return sseResponse<EvalStreamEvent>(
        (signal) =>
          runEval({
            suite,
            models,
            ...(request.repeat === undefined ? {} : { repeat: request.repeat }),
            concurrency,
            browser,
            ...(manager.prices ? { prices: manager.prices } : {}),
            signal,
            secrets: secrets.secrets,
            store: manager.store,
            log,
          }),
        {
          ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
          frame: (event, index) => `id: ${index}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
        },
      )
    },
  )
  return routes
}

function toSuite(value: unknown) {
  if (typeof value === 'string') {
    try {
      return parseSuite(value, 'suite')
    } catch (error) {
      if (error instanceof SuiteError) throw new ApiError(400, 'invalid_request', error.message)
      throw error
    }
  }
  const parsed = SuiteSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`,
  )
  throw new ApiError(400, 'invalid_request', `suite is not a valid suite: ${problems.join('; ')}`)
}
