import { type Harness, startHarness } from '../server/support.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts'

export interface TracedHarness {
  receiver: OtlpReceiver
  fake: FakeOpenAI
  harness: Harness
  /** Closes the server, the model and the receiver, and gives the process its OTEL_* back. */
  close(): Promise<void>
}

/**
 * A server (no browser) whose model ends every run at once, exporting its traces to a fresh local
 * receiver: the server reads OTEL_* from the process's environment as it starts, so they are set
 * here (with `env`) until close.
 */
export async function startTracedHarness(env: Record<string, string> = {}): Promise<TracedHarness> {
  const saved = { ...process.env }
  const receiver = await startOtlpReceiver()
  Object.assign(process.env, receiver.env, env)
  const fake = await startFakeOpenAI({ fallback: () => doneTurn('All done.') })
  const harness = await startHarness({ fake, browser: null })
  return {
    receiver,
    fake,
    harness,
    close: async () => {
      await harness.close()
      await fake.close()
      await receiver.close()
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
    },
  }
}
