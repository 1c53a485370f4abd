import type { Config } from '../config.ts'
import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import { openStore } from '../store/open-store.ts'
import { startHeartbeat, thisProcess } from '../store/owner.ts'
import { RunRecorder } from '../store/run-recorder.ts'
import type { RunStore } from '../store/run-store.ts'
import { describeError } from '../util/describe-error.ts'

export interface Recorder {
  /** The store the run is recorded in: where its artifacts go when it is shared. */
  readonly store: RunStore
  record(event: AgentEvent, fallback: { task: string; model: string; startUrl: string | undefined }): void
  close(): Promise<void>
}

/**
 * Records the run in the store so `sextant runs` shows it. Recording is a
 * side job: a store that cannot open or write costs the record, never the run.
 */
export async function openRecorder(config: Config, log: Logger): Promise<Recorder | undefined> {
  let store: RunStore
  try {
    store = await openStore(config.db)
  } catch (error) {
    process.stderr.write(`sextant: not recording this run (${describeError(error)})\n`)
    return undefined
  }
  let failed = false
  // The run's lease: while it is renewed, `sextant runs` elsewhere knows this run is live.
  const owner = thisProcess()
  const recorder = new RunRecorder(store, {
    owner,
    onError: (error) => {
      log.warn({ err: error }, 'could not record the run')
      if (failed) return
      failed = true
      process.stderr.write(`sextant: stopped recording this run (${describeError(error)})\n`)
    },
  })
  let heartbeat: { stop(): void } | undefined
  let started = false
  return {
    store,
    record(event, fallback) {
      if (failed) return
      if (!started) {
        started = true
        // A stream always opens with run_started; should it not, the run is still created.
        if (event.type !== 'run_started') {
          recorder.start(event, {
            task: fallback.task,
            model: fallback.model,
            ...(fallback.startUrl === undefined ? {} : { startUrl: fallback.startUrl }),
          })
        }
        heartbeat ??= startHeartbeat(() => {
          store.heartbeat(owner, new Date()).catch((error: unknown) => {
            log.warn({ err: error }, 'could not renew the lease of the run')
          })
        })
      }
      // The stored task is the one run_started shows: secret values replaced by placeholders.
      recorder.record(event, { model: fallback.model })
    },
    async close() {
      heartbeat?.stop()
      await recorder.flush()
      await store.close()
    },
  }
}
