import type { Logger } from '../../log.ts'
import type { EventWriterHooks } from '../../store/event-writer.ts'

/**
 * The event writer's news of the store, logged, and counted by `count` (the
 * server's metrics): an outage is one error line and one recovery line, not
 * a line per retry.
 */
export function storeWriteHooks(log: Logger, count: EventWriterHooks = {}): EventWriterHooks {
  return {
    onOutage: (error) => {
      log.error({ err: error }, 'cannot store events: retrying until the store answers; none is dropped')
      count.onOutage?.(error)
    },
    onRetry: (error) => count.onRetry?.(error),
    onRecovered: (outage) => {
      log.warn(outage, 'storing events again: every event held during the outage is written')
      count.onRecovered?.(outage)
    },
    onOverflow: (runId) => {
      log.error({ runId }, 'too many events wait for the store: the run is stopped')
      count.onOverflow?.(runId)
    },
    onFenced: (error) => {
      log.warn({ runs: error.runIds }, 'the store refused a write: another server ended or took over the run')
      count.onFenced?.(error)
    },
  }
}
