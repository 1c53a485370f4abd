import type { OpenAPIV3_1 } from 'openapi-types'
import type { ZodType } from 'zod'
import { PersonInputSchema } from '../../browser/session/live/person-input.ts'
import {
  EvalEventSchema,
  EvalReportSchema,
  evalEventSchemas,
  evalEventTypes,
} from '../../events/eval-events.ts'
import { AgentEventSchema, eventSchemas, eventTypes } from '../../events/events.ts'
import { RecordingSchema } from '../../recording/schema.ts'
import { ProfileInfoSchema, ProfileListSchema, ProfileStateSchema } from './profile-schemas.ts'
import {
  AnswerBodySchema,
  AnswerReceiptSchema,
  ArtifactListSchema,
  ConfirmationBodySchema,
  ConfirmationReceiptSchema,
  DownloadListSchema,
  ErrorBodySchema,
  EvalRequestSchema,
  InputReceiptSchema,
  RunDetailSchema,
  RunPageSchema,
  RunRequestSchema,
  RunViewSchema,
  TakeoverStateSchema,
} from './schemas.ts'

/**
 * What the route files describe themselves with (hono-openapi's
 * describeRoute, next to each handler): the API's named schemas and the
 * responses many routes share. openapi.ts turns them into /openapi.json.
 */

/** Component name of each event's schema: run_started → RunStartedEvent. */
export function eventSchemaName(type: string): string {
  return `${type.replace(/(^|_)(\w)/g, (_match, _sep, letter: string) => letter.toUpperCase())}Event`
}

/** Every schema the document names (#/components/schemas/<name>); a route refers to no other. */
export const namedSchemas: ReadonlyMap<ZodType, string> = new Map<ZodType, string>([
  [RunRequestSchema, 'RunRequest'],
  [ConfirmationBodySchema, 'ConfirmationBody'],
  [AnswerBodySchema, 'AnswerBody'],
  [ConfirmationReceiptSchema, 'ConfirmationReceipt'],
  [AnswerReceiptSchema, 'AnswerReceipt'],
  [RunViewSchema, 'Run'],
  [RunDetailSchema, 'RunDetail'],
  [RunPageSchema, 'RunPage'],
  [RecordingSchema, 'Recording'],
  [TakeoverStateSchema, 'TakeoverState'],
  [PersonInputSchema, 'PersonInput'],
  [InputReceiptSchema, 'InputReceipt'],
  [DownloadListSchema, 'DownloadList'],
  [ArtifactListSchema, 'ArtifactList'],
  [ErrorBodySchema, 'Error'],
  ...eventTypes.map((type): [ZodType, string] => [eventSchemas[type], eventSchemaName(type)]),
  [AgentEventSchema, 'AgentEvent'],
  [EvalRequestSchema, 'EvalRequest'],
  [EvalReportSchema, 'EvalReport'],
  ...evalEventTypes.map((type): [ZodType, string] => [evalEventSchemas[type], eventSchemaName(type)]),
  [EvalEventSchema, 'EvalEvent'],
  [ProfileInfoSchema, 'Profile'],
  [ProfileListSchema, 'ProfileList'],
  [ProfileStateSchema, 'ProfileState'],
])

/** A reference to a named schema; throws at startup when a route names a schema the document lacks. */
export function schemaRef(schema: ZodType): OpenAPIV3_1.ReferenceObject {
  const name = namedSchemas.get(schema)
  if (name === undefined) throw new Error('The schema is not in namedSchemas (route-docs.ts).')
  return { $ref: `#/components/schemas/${name}` }
}

export function jsonContent(schema: ZodType): OpenAPIV3_1.ResponseObject['content'] {
  return { 'application/json': { schema: schemaRef(schema) } }
}

export function jsonBody(schema: ZodType): OpenAPIV3_1.RequestBodyObject {
  return { required: true, content: jsonContent(schema) ?? {} }
}

/** A response in the API's error shape (`{ error: { code, message } }`). */
export function errorResponse(description: string): OpenAPIV3_1.ResponseObject {
  return { description, content: jsonContent(ErrorBodySchema) }
}

/** What readJsonBody refuses (request-body.ts). */
export function bodyErrors(maxBytes: number): OpenAPIV3_1.ResponsesObject {
  return {
    '400': errorResponse('The body does not fit its schema, or is not JSON.'),
    '413': errorResponse(`The body is larger than the limit (${maxBytes} bytes).`),
    '415': errorResponse('The body is not application/json.'),
  }
}

export const runNotFoundResponse = errorResponse('No such run.')

/** A run's events as SSE (sse.ts frames them). */
export const runEventStream: OpenAPIV3_1.ResponseObject = {
  description: `Server-Sent Events: one frame per event, \`id:\` its seq, \`event:\` its type (${eventTypes.join(', ')}), \`data:\` the event as JSON. A \`: ping\` comment every 15 s; the stream ends after \`done\`. While a run waits in the queue (SEXTANT_QUEUE), \`queue_position\` frames without an id give its place.`,
  content: { 'text/event-stream': { schema: schemaRef(AgentEventSchema) } },
}

/** Routes anyone may read, even when the API needs a bearer token. */
export const open: Pick<OpenAPIV3_1.OperationObject, 'security'> = { security: [] }

export function pathParameter(
  name: string,
  schema: OpenAPIV3_1.ParameterObject['schema'],
): OpenAPIV3_1.ParameterObject {
  return { name, in: 'path', required: true, schema }
}
