import type { SseFrame } from './fake-provider.ts'

/**
 * One streamed answer of Google's Generative Language API
 * (`:streamGenerateContent?alt=sse`): a short text, then the forced function
 * call, then usage in Gemini's shape (`cachedContentTokenCount` is part of
 * `promptTokenCount`).
 */
export function geminiFunctionCall(
  args: unknown,
  usage: { prompt: number; cached: number; output: number; thoughts?: number },
  name = 'AgentOutput',
): SseFrame[] {
  return geminiFunctionCalls([args], usage, name)
}

/** Several `functionCall` parts in one candidate's content: Gemini's parallel function calls. */
export function geminiFunctionCalls(
  argsList: unknown[],
  usage: { prompt: number; cached: number; output: number; thoughts?: number },
  name = 'AgentOutput',
): SseFrame[] {
  return [
    { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Looking.' }] }, index: 0 }] } },
    {
      data: {
        candidates: [
          {
            content: { role: 'model', parts: argsList.map((args) => ({ functionCall: { name, args } })) },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: usage.prompt,
          cachedContentTokenCount: usage.cached,
          candidatesTokenCount: usage.output,
          ...(usage.thoughts === undefined ? {} : { thoughtsTokenCount: usage.thoughts }),
          totalTokenCount: usage.prompt + usage.output + (usage.thoughts ?? 0),
        },
        modelVersion: 'gemini-test',
      },
    },
  ]
}
