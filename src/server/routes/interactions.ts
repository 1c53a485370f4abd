import { Hono } from 'hono'
import type { AppEnv } from '../app-env.ts'
import { ApiError, runNotFound } from '../errors.ts'
import type { LiveRun } from '../live-run.ts'
import { readJsonBody } from '../request-body.ts'
import type { RunManager } from '../run-manager.ts'
import { AnswerBodySchema, ConfirmationBodySchema } from '../schemas.ts'

/** /v1/runs/:id/confirmations/:callId and /v1/runs/:id/answers/:questionId: replies a run waits for. */
export function interactionRoutes(manager: RunManager, maxBodyBytes: number): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()

  routes.post('/:id/confirmations/:callId', async (c) => {
    const { id, callId } = c.req.param()
    c.set('runId', id)
    const run = liveRun(manager, id)
    const { approve } = await readJsonBody(c, ConfirmationBodySchema, maxBodyBytes)
    if (!run.confirmations.settle(callId, approve)) {
      throw new ApiError(
        409,
        'not_pending',
        `Call "${callId}" of run ${id} is not waiting for a confirmation.`,
      )
    }
    return c.json({ runId: id, callId, approved: approve })
  })

  routes.post('/:id/answers/:questionId', async (c) => {
    const { id, questionId } = c.req.param()
    c.set('runId', id)
    const run = liveRun(manager, id)
    const { answer } = await readJsonBody(c, AnswerBodySchema, maxBodyBytes)
    if (!run.questions.settle(questionId, answer)) {
      throw new ApiError(
        409,
        'not_pending',
        `Question "${questionId}" of run ${id} is not waiting for an answer.`,
      )
    }
    return c.json({ runId: id, questionId, answer })
  })

  return routes
}

/** A finished run waits for nothing: 409; an unknown one: 404. */
function liveRun(manager: RunManager, id: string): LiveRun {
  const run = manager.get(id)
  if (run) return run
  const stored = manager.store.getRun(id)
  if (!stored) throw runNotFound(id)
  throw new ApiError(409, 'not_pending', `Run ${id} has ended (${stored.status}); it waits for no reply.`)
}
