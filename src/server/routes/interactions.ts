import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { ReplyMessage } from '../../store/shared.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { readJsonBody } from '../http/request-body.ts'
import { bodyErrors, errorResponse, jsonBody, jsonContent, runNotFoundResponse } from '../http/route-docs.ts'
import {
  AnswerBodySchema,
  AnswerReceiptSchema,
  ConfirmationBodySchema,
  ConfirmationReceiptSchema,
} from '../http/schemas.ts'
import type { ReplyOutcome } from '../runs/run-replies.ts'

/** Delivers a reply to the run waiting for it, or says why it could not. */
export type DeliverReply = (message: ReplyMessage) => Promise<ReplyOutcome>

/**
 * /v1/runs/:id/confirmations/:callId and /v1/runs/:id/answers/:questionId:
 * replies a run waits for. `reply` is the server's (through its store) or,
 * in the viewer of a `sextant run`, the one run's own.
 */
export function interactionRoutes(reply: DeliverReply, maxBodyBytes: number): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()

  const refusals = {
    ...bodyErrors(maxBodyBytes),
    '404': runNotFoundResponse,
    '409': errorResponse(
      'The run has ended, the reply was given already, nothing waits for it (not_pending), or several sub-agents wait with this call id (ambiguous_call).',
    ),
  }

  routes.post(
    '/:id/confirmations/:callId',
    describeRoute({
      summary: 'Approve or deny a call that waits for confirmation (confirmation_required)',
      requestBody: jsonBody(ConfirmationBodySchema),
      responses: {
        '200': { description: 'Delivered to the run', content: jsonContent(ConfirmationReceiptSchema) },
        ...refusals,
      },
    }),
    async (c) => {
      const { id, callId } = c.req.param()
      c.set('runId', id)
      const { approve } = await readJsonBody(c, ConfirmationBodySchema, maxBodyBytes)
      const outcome = await reply({ kind: 'confirmation', runId: id, id: callId, approve })
      refuse(outcome, id, `Call "${callId}" of run ${id} is not waiting for a confirmation.`)
      return c.json({ runId: id, callId, approved: approve })
    },
  )

  routes.post(
    '/:id/answers/:questionId',
    describeRoute({
      summary: 'Answer a question the model asked (question)',
      requestBody: jsonBody(AnswerBodySchema),
      responses: {
        '200': { description: 'Delivered to the run', content: jsonContent(AnswerReceiptSchema) },
        ...refusals,
      },
    }),
    async (c) => {
      const { id, questionId } = c.req.param()
      c.set('runId', id)
      const { answer } = await readJsonBody(c, AnswerBodySchema, maxBodyBytes)
      const outcome = await reply({ kind: 'answer', runId: id, id: questionId, answer })
      refuse(outcome, id, `Question "${questionId}" of run ${id} is not waiting for an answer.`)
      return c.json({ runId: id, questionId, answer })
    },
  )

  return routes
}

/**
 * A finished run waits for nothing: 409; an unknown one: 404; a reply given
 * before (on any server): 409; a call id several sub-agents wait with: 409.
 */
function refuse(outcome: ReplyOutcome, id: string, notPending: string): void {
  switch (outcome) {
    case 'delivered':
      return
    case 'not_found':
      throw runNotFound(id)
    case 'ended':
      throw new ApiError(409, 'not_pending', `Run ${id} has ended; it waits for no reply.`)
    case 'already_replied':
      throw new ApiError(409, 'not_pending', `${notPending} It was answered already.`)
    case 'not_pending':
      throw new ApiError(409, 'not_pending', notPending)
    case 'ambiguous':
      throw new ApiError(
        409,
        'ambiguous_call',
        `More than one of run ${id}'s sub-agents waits for a confirmation of this call id. Answer on the sub-agent's own run: POST /v1/runs/<runId>/confirmations/<callId>, with the runId of its confirmation_required event.`,
      )
  }
}
