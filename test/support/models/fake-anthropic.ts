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
