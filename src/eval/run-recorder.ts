import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import { EventWriter, type RunStore, thisProcess } from '../store/index.ts'

/**
 * Stores each eval run and its events, so the report's run ids open with
 * `sextant runs show` and GET /v1/runs/:id. A store that fails is logged and
 * skipped: the eval itself goes on.
 */
export function runRecorder(store: RunStore, log: Logger) {
  const writer = new EventWriter(store, (error, lost) =>
    log.warn({ err: error, lost }, 'could not store events'),
  )
  const owner = thisProcess()
  const attempt = (work: () => void) => {
    try {
      work()
    } catch (error) {
      log.warn({ err: error }, 'could not record an eval run')
    }
  }
  return {
    record(event: AgentEvent, run: { task: string; startUrl: string }): void {
      if (event.type === 'run_started') {
        attempt(() =>
          store.createRun({
            id: event.runId,
            task: run.task,
            model: event.model,
            startUrl: run.startUrl,
            createdAt: event.at,
            owner,
          }),
        )
      }
      writer.push(event)
      if (event.type !== 'done') return
      attempt(() => {
        writer.flush()
        store.finishRun(event.runId, {
          reason: event.reason,
          result: event.result,
          usage: event.usage,
          costUsd: event.costUsd ?? null,
          steps: event.steps,
          finishedAt: event.at,
        })
      })
    },
    flush: () => writer.flush(),
  }
}
