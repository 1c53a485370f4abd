import { z } from 'zod'
import { EvalEventSchema, EvalReportSchema, evalEventSchemas, evalEventTypes } from '../events/eval-events.ts'
import { AgentEventSchema, eventSchemas, eventTypes } from '../events/events.ts'
import { RecordingSchema } from '../recording/schema.ts'
import { EvalRequestSchema } from './routes/evals.ts'
import {
  AnswerBodySchema,
  ConfirmationBodySchema,
  ErrorBodySchema,
  RunDetailSchema,
  RunPageSchema,
  RunRequestSchema,
  RunViewSchema,
} from './schemas.ts'

/** Component name of each event's schema: run_started → RunStartedEvent. */
export function eventSchemaName(type: string): string {
  return `${type.replace(/(^|_)(\w)/g, (_match, _sep, letter: string) => letter.toUpperCase())}Event`
}

/**
 * The OpenAPI 3.1 description of every route, body and event, generated from
 * the same zod schemas that validate requests and events.
 */
export function openApiDocument(version: string, auth: boolean): Record<string, unknown> {
  const registry = z.registry<{ id: string }>()
  registry.add(RunRequestSchema, { id: 'RunRequest' })
  registry.add(ConfirmationBodySchema, { id: 'ConfirmationBody' })
  registry.add(AnswerBodySchema, { id: 'AnswerBody' })
  registry.add(RunViewSchema, { id: 'Run' })
  registry.add(RunDetailSchema, { id: 'RunDetail' })
  registry.add(RunPageSchema, { id: 'RunPage' })
  registry.add(RecordingSchema, { id: 'Recording' })
  registry.add(ErrorBodySchema, { id: 'Error' })
  for (const type of eventTypes) registry.add(eventSchemas[type], { id: eventSchemaName(type) })
  registry.add(AgentEventSchema, { id: 'AgentEvent' })
  registry.add(EvalRequestSchema, { id: 'EvalRequest' })
  registry.add(EvalReportSchema, { id: 'EvalReport' })
  for (const type of evalEventTypes) registry.add(evalEventSchemas[type], { id: eventSchemaName(type) })
  registry.add(EvalEventSchema, { id: 'EvalEvent' })
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    // Request bodies are described as accepted; responses as produced.
    io: 'input',
    unrepresentable: 'any',
  })
  for (const schema of Object.values(schemas)) {
    delete (schema as { $schema?: string }).$schema
    delete (schema as { $id?: string }).$id
  }

  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  const json = (name: string) => ({ 'application/json': { schema: ref(name) } })
  const error = (description: string) => ({ description, content: json('Error') })
  const eventStream = {
    description: `Server-Sent Events: one frame per event, \`id:\` its seq, \`event:\` its type (${eventTypes.join(', ')}), \`data:\` the event as JSON. A \`: ping\` comment every 15 s; the stream ends after \`done\`. While a run waits in the queue (SEXTANT_QUEUE), \`queue_position\` frames without an id give its place.`,
    content: { 'text/event-stream': { schema: ref('AgentEvent') } },
  }
  const runId = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }
  const common = {
    ...(auth ? { '401': error('Missing or wrong bearer token.') } : {}),
  }
  const body = (name: string) => ({ required: true, content: json(name) })
  const bodyErrors = {
    '400': error('The body does not fit its schema, or is not JSON.'),
    '413': error('The body is larger than the limit (64 KiB).'),
    '415': error('The body is not application/json.'),
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Sextant',
      version,
      description: 'A language model operates a real Chromium browser step by step; every step is streamed.',
    },
    ...(auth ? { security: [{ bearer: [] }] } : {}),
    paths: {
      '/v1/evals': {
        post: {
          summary: 'Run a task suite and stream its progress',
          description:
            'Server-Sent Events: every run’s events (as on /v1/runs, each with its runId) and the eval’s own (`id:` counts the frames), ending with `eval_finished` and the report (docs/eval.md). Each run is stored: GET /v1/runs/{id} opens it. The eval stops when the client disconnects.',
          requestBody: body('EvalRequest'),
          responses: {
            '200': {
              description: 'The eval’s progress',
              content: {
                'text/event-stream': { schema: { oneOf: [ref('AgentEvent'), ref('EvalEvent')] } },
              },
            },
            ...bodyErrors,
            ...common,
          },
        },
      },
      '/v1/runs': {
        post: {
          summary: 'Start a run and stream its events',
          requestBody: body('RunRequest'),
          responses: {
            '200': {
              ...eventStream,
              headers: { Location: { description: '/v1/runs/<id>', schema: { type: 'string' } } },
            },
            ...bodyErrors,
            // A run request may carry a whole recording to replay.
            '413': error('The body is larger than the limit (2 MiB).'),
            ...common,
            '429': {
              ...error('As many runs are live as SEXTANT_MAX_RUNS allows.'),
              headers: { 'Retry-After': { schema: { type: 'integer' } } },
            },
            '503': error('The server is shutting down.'),
          },
        },
        get: {
          summary: 'Recent runs, newest first',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            },
            {
              name: 'cursor',
              in: 'query',
              schema: { type: 'string' },
              description: 'nextCursor of the previous page',
            },
          ],
          responses: { '200': { description: 'A page of runs', content: json('RunPage') }, ...common },
        },
      },
      '/v1/runs/{id}': {
        parameters: [runId],
        get: {
          summary: 'A run: status, result, usage, and the runs of its sub-agents',
          responses: {
            '200': { description: 'The run', content: json('RunDetail') },
            '404': error('No such run.'),
            ...common,
          },
        },
        delete: {
          summary:
            'Abort a run (reason user_abort) and answer its final state; a finished run is answered unchanged',
          responses: {
            '200': { description: 'The run', content: json('RunDetail') },
            '404': error('No such run.'),
            ...common,
          },
        },
      },
      '/v1/runs/{id}/recording': {
        parameters: [runId],
        get: {
          summary:
            'The run’s recording (docs/recording.md): replay it with POST /v1/runs {"replay": …}, or export it',
          responses: {
            '200': { description: 'The recording', content: json('Recording') },
            '404': error('No such run.'),
            ...common,
          },
        },
      },
      '/v1/runs/{id}/events': {
        parameters: [
          runId,
          {
            name: 'Last-Event-ID',
            in: 'header',
            schema: { type: 'integer' },
            description: 'Replay only events after this seq.',
          },
          { name: 'after', in: 'query', schema: { type: 'integer' }, description: 'Same as Last-Event-ID.' },
        ],
        get: {
          summary: 'Replay a run’s events, then follow it live until done',
          responses: { '200': eventStream, '404': error('No such run.'), ...common },
        },
      },
      '/v1/runs/{id}/confirmations/{callId}': {
        parameters: [runId, { name: 'callId', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          summary: 'Approve or deny a call that waits for confirmation (confirmation_required)',
          requestBody: body('ConfirmationBody'),
          responses: {
            '200': { description: 'Delivered to the run' },
            ...bodyErrors,
            '404': error('No such run.'),
            '409': error('The call is not waiting for a confirmation.'),
            ...common,
          },
        },
      },
      '/v1/runs/{id}/answers/{questionId}': {
        parameters: [runId, { name: 'questionId', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          summary: 'Answer a question the model asked (question)',
          requestBody: body('AnswerBody'),
          responses: {
            '200': { description: 'Delivered to the run' },
            ...bodyErrors,
            '404': error('No such run.'),
            '409': error('The question is not waiting for an answer.'),
            ...common,
          },
        },
      },
      '/v1/runs/{id}/steps/{step}/screenshot': {
        parameters: [
          runId,
          { name: 'step', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        ],
        get: {
          summary: 'A step’s screenshot: a JPEG of the viewport, secrets blanked',
          responses: {
            '200': {
              description: 'The JPEG',
              content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } },
            },
            '400': error('The step is not a number from 1.'),
            '404': error('No such run, or no screenshot of that step.'),
            ...common,
          },
        },
      },
      '/v1/runs/{id}/steps/{step}/page-view': {
        parameters: [
          runId,
          { name: 'step', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        ],
        get: {
          summary: 'The page view the model read at a step, kept with its screenshot',
          responses: {
            '200': {
              description: 'The page view',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            '400': error('The step is not a number from 1.'),
            '404': error('No such run, or no page view of that step.'),
            ...common,
          },
        },
      },
      '/healthz': {
        get: { summary: 'Liveness', security: [], responses: { '200': { description: 'The server is up' } } },
      },
      '/openapi.json': {
        get: { summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } },
      },
    },
    components: {
      schemas,
      ...(auth ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } : {}),
    },
  }
}
