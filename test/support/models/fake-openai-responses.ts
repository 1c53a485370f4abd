import { pieces, type SseFrame } from './fake-provider.ts'

/**
 * Streamed answers of OpenAI's Responses API (`POST /v1/responses`), in the
 * shapes vercel/ai recorded from it (packages/openai/src/responses/__fixtures__:
 * issue-19493-gpt-5.1-tool-call.chunks.txt for a function call,
 * openai-error.1.chunks.txt for the `error` event), cut to the fields the
 * provider reads.
 */

const responseId = 'resp_0775572d10a16b66006a8d85285ef487d2ae865d3657af7276'
const callItemId = 'fc_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c98'

function response(status: string, extra: Record<string, unknown> = {}) {
  return {
    id: responseId,
    object: 'response',
    created_at: 1787659560,
    status,
    error: null,
    incomplete_details: null,
    model: 'gpt-5.1-2025-11-13',
    output: [],
    usage: null,
    ...extra,
  }
}

const usage = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 25,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 1225,
}

/** `response.created`, then the AgentOutput function call opened and the first `count` of its arguments' six pieces. */
function startedCall(input: unknown, count: number, sequence: { n: number }): SseFrame[] {
  const frame = (data: Record<string, unknown>): SseFrame => ({
    data: { ...data, sequence_number: sequence.n++ },
  })
  return [
    frame({ type: 'response.created', response: response('in_progress') }),
    frame({
      type: 'response.output_item.added',
      item: {
        id: callItemId,
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue',
        name: 'AgentOutput',
      },
      output_index: 0,
    }),
    ...pieces(JSON.stringify(input), 6)
      .slice(0, count)
      .map((delta) =>
        frame({
          type: 'response.function_call_arguments.delta',
          delta,
          item_id: callItemId,
          output_index: 0,
        }),
      ),
  ]
}

/** The whole function call, `response.completed`. */
export function responsesFunctionCall(input: unknown): SseFrame[] {
  const sequence = { n: 0 }
  const args = JSON.stringify(input)
  const item = {
    id: callItemId,
    type: 'function_call',
    status: 'completed',
    arguments: args,
    call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue',
    name: 'AgentOutput',
  }
  const frames = startedCall(input, 6, sequence)
  const frame = (data: Record<string, unknown>): SseFrame => ({
    data: { ...data, sequence_number: sequence.n++ },
  })
  return [
    ...frames,
    frame({
      type: 'response.function_call_arguments.done',
      arguments: args,
      item_id: callItemId,
      output_index: 0,
    }),
    frame({ type: 'response.output_item.done', item, output_index: 0 }),
    frame({ type: 'response.completed', response: response('completed', { output: [item], usage }) }),
  ]
}

/**
 * The `error` event after output has begun, as openai-error.1.chunks.txt
 * records it (an `error` object inside the event), with the overload's code
 * (`server_is_overloaded`, HTTP 503's twin).
 */
export function responsesOverloadedMidStream(input: unknown): SseFrame[] {
  const sequence = { n: 0 }
  const frames = startedCall(input, 3, sequence)
  return [
    ...frames,
    {
      data: {
        type: 'error',
        sequence_number: sequence.n++,
        error: {
          type: 'service_unavailable_error',
          code: 'server_is_overloaded',
          message: 'Our servers are currently overloaded. Please try again later.',
          param: null,
        },
      },
    },
  ]
}

/** A refusal: a `message` item whose content is a `refusal` part, streamed as `response.refusal.delta`. */
export function responsesRefusal(words: string): SseFrame[] {
  const sequence = { n: 0 }
  const frame = (data: Record<string, unknown>): SseFrame => ({
    data: { ...data, sequence_number: sequence.n++ },
  })
  const itemId = 'msg_0775572d10a16b66006a8d8528e8a887d2a32ef76463d40c99'
  const item = {
    id: itemId,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'refusal', refusal: words }],
  }
  return [
    frame({ type: 'response.created', response: response('in_progress') }),
    frame({
      type: 'response.output_item.added',
      item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      output_index: 0,
    }),
    frame({
      type: 'response.content_part.added',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: 'refusal', refusal: '' },
    }),
    ...pieces(words, 3).map((delta) =>
      frame({ type: 'response.refusal.delta', item_id: itemId, output_index: 0, content_index: 0, delta }),
    ),
    frame({
      type: 'response.refusal.done',
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      refusal: words,
    }),
    frame({ type: 'response.output_item.done', item, output_index: 0 }),
    frame({ type: 'response.completed', response: response('completed', { output: [item], usage }) }),
  ]
}

/** Out of `max_output_tokens` inside the call's arguments: `response.incomplete` with its reason. */
export function responsesCutOff(input: unknown): SseFrame[] {
  const sequence = { n: 0 }
  const frames = startedCall(input, 3, sequence)
  return [
    ...frames,
    {
      data: {
        type: 'response.incomplete',
        sequence_number: sequence.n++,
        response: response('incomplete', { incomplete_details: { reason: 'max_output_tokens' }, usage }),
      },
    },
  ]
}
