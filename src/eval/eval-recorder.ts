import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import { RunRecorder, type RunStore, thisProcess } from '../store/open-store.ts'

/**
 * Stores each eval run and its events, so the report's run ids open with
 * `sextant runs show` and GET /v1/runs/:id. A store that fails is logged and
 * skipped: the eval itself goes on.
 */
export function runRecorder(store: RunStore, log: Logger) {
  const recorder = new RunRecorder(store, {
    owner: thisProcess(),
    onError: (error) => log.warn({ err: error }, 'could not record an eval run'),
  })
  return {
    record(event: AgentEvent, run: { task: string; startUrl: string }): void {
      recorder.record(event, run)
    },
    flush: () => recorder.flush(),
  }
}
