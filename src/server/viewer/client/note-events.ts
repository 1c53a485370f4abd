import type { EventRenderers, RunPage } from './event-renderers.ts'

/**
 * Browser code: one line in the current step for each thing that happened
 * around the model's actions: warnings, stuck detections and recoveries,
 * compaction, errors. Served as source text (see assets.ts): self-contained.
 */
export function noteEvents({ timeline }: RunPage): EventRenderers {
  const { note } = timeline
  return {
    warning: (event) => note('warning', `Warning (${event.code}): ${event.message}`),
    stuck_detected: (event) => note('warning', `Stuck (${event.kind}): ${event.detail}`),
    recovery: (event) =>
      note('info', `Recovery: ${event.strategy}${event.detail ? ` — ${event.detail}` : ''}`),
    compaction_start: () => note('info', 'Summarizing older steps…'),
    compaction_end: (event) =>
      note('info', `Summarized: ${event.tokensBefore} → ${event.tokensAfter} tokens.`),
    error: (event) => note('error', `${event.retryable ? 'Error (retrying)' : 'Error'}: ${event.message}`),
  }
}
