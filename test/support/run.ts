import type { LanguageModel } from 'ai'
import { runAgent } from '../../src/agent/loop.ts'
import { startModelStream } from '../../src/agent/model-calls/model-stream.ts'
import { agentOutputJsonSchema } from '../../src/agent/output/output.ts'
import { newRunRecord } from '../../src/agent/run/apply-update.ts'
import type { AgentContext } from '../../src/agent/run/run-context.ts'
import type { RunOptions } from '../../src/agent/run/run-options.ts'
import { buildToolRegistry } from '../../src/agent/tools/registry.ts'
import { type AgentEvent, type AgentEventOf, type EventType, isLiveOnly } from '../../src/events/events.ts'
import { silentLogger } from '../../src/log.ts'
import { RunSecrets } from '../../src/secrets/secrets.ts'
import type { AnyTool } from '../../src/tool.ts'

/** Runs to the end and returns every event. */
export async function collect(options: RunOptions): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const event of runAgent({ stuck: false, ...options })) events.push(event)
  return events
}

export function ofType<T extends EventType>(events: AgentEvent[], type: T): AgentEventOf<T>[] {
  return events.filter((event): event is AgentEventOf<T> => event.type === type)
}

export function doneOf(events: AgentEvent[]): AgentEventOf<'done'> {
  const done = events.at(-1)
  if (done?.type !== 'done') throw new Error(`last event is ${done?.type}, not done`)
  return done
}

/** A hand-built context for testing one state handler on its own. */
export function handBuiltContext(
  model: LanguageModel,
  overrides: Partial<AgentContext> & { browserTools?: AnyTool[] } = {},
): AgentContext {
  const { browserTools = [], ...rest } = overrides
  const tools = buildToolRegistry(browserTools, {})
  const schema = agentOutputJsonSchema([...tools.values()])
  const signal = rest.signal ?? new AbortController().signal
  return {
    runId: 'run_test',
    task: 'Test task',
    model,
    maxTurns: 10,
    tools,
    policy: [],
    confirmationTimeoutMs: 1_000,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 10 },
    compaction: { thresholdTokens: 100_000, keepRecentSteps: 2, maxFailures: 2 },
    maxInvalidOutputs: 3,
    systemPrompt: 'system',
    secrets: RunSecrets.none(),
    signal,
    log: silentLogger(),
    now: Date.now,
    startedAt: Date.now(),
    startStream: (prompt, streamSignal) => startModelStream(model, prompt, schema, streamSignal),
    run: newRunRecord(),
    ...rest,
  }
}

/**
 * What breaks a stream's numbering, none when it holds: its stored events'
 * seq counts 0, 1, 2… without gaps, and a live-only event (text_delta)
 * carries the seq of the event before it.
 */
export function seqProblems(events: readonly AgentEvent[]): string[] {
  const problems: string[] = []
  let last = -1
  for (const [index, event] of events.entries()) {
    const expected = isLiveOnly(event) ? last : last + 1
    if (event.seq !== expected)
      problems.push(`#${index} ${event.type}: seq ${event.seq}, expected ${expected}`)
    last = isLiveOnly(event) ? last : event.seq
  }
  return problems
}
