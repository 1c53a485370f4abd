import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { secretsFromRequest } from '../../eval/eval-secrets.ts'
import { unfilledPlaceholders, unkeepableLimits } from '../../eval/resolve-task.ts'
import { type EvalStreamEvent, newEvalId, runEval } from '../../eval/run-eval.ts'
import { parseSuite, SuiteError, SuiteSchema } from '../../eval/suite.ts'
import { EvalEventSchema } from '../../events/eval-events.ts'
import { AgentEventSchema } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import { settlesWithin } from '../../util/deadline.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { readJsonBody } from '../http/request-body.ts'
import { bodyErrors, errorResponse, jsonBody, schemaRef } from '../http/route-docs.ts'
import { EvalRequestSchema } from '../http/schemas.ts'
import { sseResponse } from '../http/sse.ts'
import type { RunManager } from '../runs/run-manager.ts'

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
 * stored, so GET /v1/runs/:id opens it. Its runs take slots of the same
 * SEXTANT_MAX_RUNS as other runs and are counted in /metrics like them.
 * The eval stops when the client goes away or on DELETE /v1/evals/:id.
 */
export function evalRoutes({ manager, maxBodyBytes, heartbeatMs, log }: EvalRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  routes.post(
    '/',
    describeRoute({
      summary: 'Run a task suite and stream its progress',
      description:
        'Server-Sent Events: every run’s events (as on /v1/runs, each with its runId) and the eval’s own (`id:` counts the frames), ending with `eval_finished` and the report (docs/eval.md). Each run is stored: GET /v1/runs/{id} opens it. Its runs take slots of SEXTANT_MAX_RUNS like other runs (at most `concurrency`, as many as are free); `Location: /v1/evals/{id}` names it for DELETE. The eval stops when the client disconnects or on DELETE.',
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
        '409': errorResponse(
          'A task names a profile, and profiles on a shared PostgreSQL store need SEXTANT_PROFILE_KEY (profile_key_required).',
        ),
        '429': errorResponse(
          'Every run slot is taken (SEXTANT_MAX_RUNS); an eval is never queued. Retry after Retry-After seconds.',
        ),
        '503': errorResponse('The server is shutting down.'),
        '400': errorResponse(
          'The body does not fit its schema or is not JSON; the suite is not valid, leaves a placeholder unfilled, or names an environment variable for a secret (give values in `secrets`); the secrets are not valid; concurrency is over SEXTANT_MAX_RUNS; a model is unknown, or has no price while a task sets maxCostUsd; or the server has no browser.',
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
      // A dollar cap on a model without a price is a 400 now, not failed runs later.
      const unkeepable = unkeepableLimits(suite, models, manager.prices)
      if (unkeepable.length > 0) throw new ApiError(400, 'invalid_request', unkeepable.join('; '))
      // A profile this server cannot open (a shared store without SEXTANT_PROFILE_KEY) is a 409 now, not failed runs later.
      if (suite.tasks.some((task) => (task.profile ?? suite.defaults?.profile) !== undefined))
        manager.profiles?.checkKey()
      // So is a task's webhook this server could not sign or may not reach: a 400 now.
      for (const task of suite.tasks) manager.checkWebhook(task.webhook ?? suite.defaults?.webhook)
      // And a task's insecure TLS this server does not allow.
      for (const task of suite.tasks) manager.checkContext(task.browser ?? suite.defaults?.browser)
      // And artifacts it cannot keep, or not keep clean.
      for (const task of suite.tasks) {
        const taskSecrets = secrets.secrets?.[task.id]
        manager.checkArtifacts({
          ...(taskSecrets ? { secrets: taskSecrets } : {}),
          ...((task.artifacts ?? suite.defaults?.artifacts)
            ? { artifacts: task.artifacts ?? suite.defaults?.artifacts }
            : {}),
        })
      }
      const webhooks = manager.webhookSigning
      const browser = manager.browser
      if (!browser)
        throw new ApiError(400, 'invalid_request', 'This server runs without a browser; evals need one.')
      // Last, so that a refused request holds no slot: 429 (or 503) when the server is full.
      const live = manager.evals.start(newEvalId(), manager.takeEvalSlots(concurrency))
      return sseResponse<EvalStreamEvent>(
        (signal) =>
          runEval({
            suite,
            models,
            ...(request.repeat === undefined ? {} : { repeat: request.repeat }),
            slots: live.slots,
            browser,
            ...(manager.prices ? { prices: manager.prices } : {}),
            ...(manager.tracer ? { tracer: manager.tracer } : {}),
            // The client leaving, DELETE /v1/evals/:id or the server shutting down.
            signal: AbortSignal.any([signal, live.signal]),
            secrets: secrets.secrets,
            store: manager.store,
            ...(manager.profiles ? { profiles: manager.profiles } : {}),
            ...(webhooks ? { webhooks } : {}),
            ...(manager.artifacts ? { artifacts: manager.artifacts } : {}),
            observe: (event) => {
              live.track(event)
              manager.observe(event)
            },
            evalId: live.id,
            log,
          }),
        {
          ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
          headers: { Location: `/v1/evals/${live.id}` },
          frame: (event, index) => `id: ${index}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
        },
      )
    },
  )
  routes.delete(
    '/:id',
    describeRoute({
      summary:
        'Abort an eval: its runs end user_abort, it starts no more, and its stream ends with the report',
      description:
        'Answers once the eval’s runs have ended (or after 10 s, still ending). Only evals running on this server are known.',
      responses: {
        '200': {
          description: 'The eval was aborted',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  evalId: { type: 'string' },
                  ended: { type: 'boolean', description: 'Whether its runs have all ended' },
                },
                required: ['evalId', 'ended'],
              },
            },
          },
        },
        '404': errorResponse('No eval with this id is running here.'),
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      const live = manager.evals.get(id)
      if (!live) throw new ApiError(404, 'not_found', `No eval with id "${id}" is running here.`)
      live.abort()
      return c.json({ evalId: id, ended: await settlesWithin(live.finished, abortWaitMs) })
    },
  )
  return routes
}

/** How long DELETE waits for an aborted eval's runs to end before answering. */
const abortWaitMs = 10_000

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
