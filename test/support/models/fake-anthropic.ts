import { pieces, type SseFrame } from './fake-provider.ts'

/**
 * One streamed answer of Anthropic's Messages API: a forced `tool_use` block
 * whose input arrives as `input_json_delta` pieces, and usage in Anthropic's
 * shape (uncached, cache-read and cache-write input tokens are separate).
 */
export function anthropicToolUse(
  input: unknown,
  usage: { input: number; cacheRead: number; cacheWrite: number; output: number },
  toolName = 'AgentOutput',
): SseFrame[] {
  return anthropicToolUses([input], usage, toolName)
}

/**
 * Several `tool_use` blocks in one message, one content block each (index 0,
 * 1, …), as Claude sends parallel calls when they are not disabled.
 */
export function anthropicToolUses(
  inputs: unknown[],
  usage: { input: number; cacheRead: number; cacheWrite: number; output: number },
  toolName = 'AgentOutput',
): SseFrame[] {
  const frames: SseFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            cache_read_input_tokens: usage.cacheRead,
            cache_creation_input_tokens: usage.cacheWrite,
            output_tokens: 1,
          },
        },
      },
    },
  ]
  inputs.forEach((input, index) => {
    frames.push({
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `toolu_${index + 1}`, name: toolName, input: {} },
      },
    })
    for (const piece of pieces(JSON.stringify(input), 6)) {
      frames.push({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        },
      })
    }
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
  })
  frames.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: usage.output },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  )
  return frames
}

const messageStart: SseFrame = {
  event: 'message_start',
  data: {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 18,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  },
}

/** The forced tool_use block opened and the first `count` of its input's six pieces streamed. */
function partialToolUse(input: unknown, count: number): SseFrame[] {
  return [
    messageStart,
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'AgentOutput', input: {} },
      },
    },
    ...pieces(JSON.stringify(input), 6)
      .slice(0, count)
      .map((piece) => ({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: piece },
        },
      })),
  ]
}

/**
 * Anthropic's `error` event after HTTP 200, once output has started: the
 * shape the Messages API streaming reference gives for an overload
 * (`overloaded_error`, the 529 of a request that had already begun).
 */
export function anthropicOverloadedMidStream(input: unknown): SseFrame[] {
  return [
    ...partialToolUse(input, 3),
    { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
  ]
}

/** The answer ran out of `max_tokens` inside the tool's input: `stop_reason: "max_tokens"` after half the JSON. */
export function anthropicCutOffInToolInput(input: unknown): SseFrame[] {
  return [
    ...partialToolUse(input, 3),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens', stop_sequence: null },
        usage: { output_tokens: 4096 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]
}

/**
 * A refusal as Claude streams it, from vercel/ai's recorded
 * packages/anthropic/src/__fixtures__/anthropic-refusal.chunks.txt: no
 * content, `stop_reason: "refusal"` and the policy's own words in `stop_details`.
 */
export function anthropicRefusal(): SseFrame[] {
  return [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          model: 'claude-fable-5',
          id: 'msg_01RefusalStreamAbcdefghijk',
          type: 'message',
          role: 'assistant',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 18,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
            output_tokens: 1,
            service_tier: 'standard',
            inference_geo: 'not_available',
          },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: {
          stop_reason: 'refusal',
          stop_sequence: null,
          stop_details: {
            type: 'refusal',
            category: 'cyber',
            explanation:
              "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
            recommended_model: 'claude-fable-5',
          },
        },
        usage: {
          input_tokens: 18,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 5,
        },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]
}
