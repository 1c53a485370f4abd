import type { HttpFailure, SseFrame } from './fake-provider.ts'

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

const usageMetadata = { promptTokenCount: 1200, candidatesTokenCount: 0, totalTokenCount: 1200 }

/**
 * Gemini's 429 on a free-tier or low-quota key, as vercel/ai recorded it
 * (packages/google/src/__fixtures__/google-429-retry-info.json): no
 * Retry-After header, the wait is a `google.rpc.RetryInfo` in the body.
 */
export function geminiRateLimited(retryDelay: string): HttpFailure {
  return {
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
        ],
      },
    },
  }
}

/**
 * A prompt Gemini refused to answer: no candidate, only `promptFeedback`
 * (vercel/ai's issue-19758-prompt-block.chunks.txt, recorded from gemini-3.7-flash).
 */
export function geminiPromptBlocked(blockReason = 'PROHIBITED_CONTENT'): SseFrame[] {
  return [
    {
      data: {
        promptFeedback: { blockReason },
        usageMetadata: {
          promptTokenCount: 9,
          totalTokenCount: 9,
          promptTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }],
          serviceTier: 'standard',
        },
        modelVersion: 'gemini-3.7-flash',
        responseId: 'EXCPatOAKMrQjMcPteHVmQo',
      },
    },
  ]
}

/**
 * A candidate Gemini stopped for a reason of its own: `SAFETY` (with the
 * rating that blocked it), `RECITATION`, or `MALFORMED_FUNCTION_CALL` (with
 * its `finishMessage`, and no parts), as the Generative Language API reference
 * describes the `Candidate`.
 */
export function geminiStopped(
  finishReason: 'SAFETY' | 'RECITATION' | 'MALFORMED_FUNCTION_CALL' | 'MAX_TOKENS',
  text?: string,
): SseFrame[] {
  const candidate: Record<string, unknown> = {
    content: { role: 'model', parts: text === undefined ? [] : [{ text }] },
    finishReason,
    index: 0,
  }
  if (finishReason === 'SAFETY') {
    candidate.safetyRatings = [
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
    ]
  }
  if (finishReason === 'MALFORMED_FUNCTION_CALL') {
    candidate.finishMessage = 'Malformed function call: AgentOutput(action={"click":'
  }
  return [{ data: { candidates: [candidate], usageMetadata, modelVersion: 'gemini-test' } }]
}
