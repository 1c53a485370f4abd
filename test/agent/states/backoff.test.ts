import { describe, expect, test } from 'vitest'
import type { ModelPrompt, ModelStream } from '../../../src/agent/run/run-state.ts'
import { backoff } from '../../../src/agent/states/backoff.ts'
import { isAbortError } from '../../../src/tool.ts'
import { scriptedModel } from '../../support/models/scripted-model.ts'
import { handBuiltContext } from '../../support/run.ts'

const emptyStream: ModelStream = {
  next: async () => ({ done: true, value: undefined }),
  cancel: () => {},
}

describe('backoff', () => {
  test('after its delay, retries the same prompt in the same step as the next attempt', async () => {
    const sent: ModelPrompt[] = []
    const ctx = handBuiltContext(scriptedModel([]), {
      startStream: (prompt) => {
        sent.push(prompt)
        return emptyStream
      },
    })
    ctx.run.step = 3
    const prompt = { system: 's', stable: ['u'], volatile: '' }
    const { next, effects } = await backoff({ type: 'backoff', attempt: 2, delayMs: 1, prompt }, ctx)
    expect(next).toMatchObject({ type: 'streaming', attempt: 2, prompt })
    expect(sent).toEqual([prompt])
    expect(effects).toEqual([])
    expect(ctx.run.step).toBe(3)
  })

  test('an abort ends the wait at once, without starting the model call', async () => {
    const controller = new AbortController()
    let starts = 0
    const ctx = handBuiltContext(scriptedModel([]), {
      signal: controller.signal,
      startStream: () => {
        starts++
        return emptyStream
      },
    })
    // A delay no test would wait out: only the abort can end it.
    const waiting = backoff(
      {
        type: 'backoff',
        attempt: 2,
        delayMs: 3_600_000,
        prompt: { system: 's', stable: ['u'], volatile: '' },
      },
      ctx,
    )
    controller.abort()
    const error = await waiting.then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(isAbortError(error)).toBe(true)
    expect(starts).toBe(0)
  })
})
