import type { DoneReason } from './events.ts'

/** What a run is doing, or how it ended: derived from its DoneReason. */
export const runStatuses = ['queued', 'running', 'completed', 'stopped', 'failed'] as const
export type RunStatus = (typeof runStatuses)[number]

/** The status a run's done reason gives it (no reason yet: running): one rule for the store, the API and webhooks. */
export function statusForReason(reason: DoneReason | undefined): RunStatus {
  switch (reason) {
    case undefined:
      return 'running'
    case 'model_stop':
      return 'completed'
    case 'user_abort':
      return 'stopped'
    default:
      return 'failed'
  }
}
