import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { events, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// A provider's refusal over Sextant's own HTTP API: the stream, GET /v1/runs/:id and the store all carry it.

let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(async () => {
  await fake?.close()
})

describe('a refusal over HTTP', () => {
  test('the done event, the run and the store carry the refusal as outcome, with its words', async () => {
    const harness = await startHarness({ fake, browser: null })
    try {
      const words = "I'm sorry, but I can't help with that request."
      fake.enqueue({ refusal: words })
      const response = await postRun(harness.url, { task: 'Buy the item with the saved card.' })
      expect(response.status).toBe(200)
      const list = events(await readSse(response))
      const expected = {
        success: false,
        text: `The model refused the task: "${words}"`,
        outcome: { kind: 'refusal', providerReason: 'refusal' },
      }
      expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'error', result: expected })
      expect(list.filter((event) => event.type === 'error')).toEqual([
        expect.objectContaining({ message: expected.text, retryable: false }),
      ])
      const id = runIdOf(response)
      const shown = await json(await fetch(`${harness.url}/v1/runs/${id}`))
      expect(shown).toMatchObject({ status: 'failed', reason: 'error', result: expected })
      expect((await harness.store.getRun(id))?.result).toEqual(expected)
      expect(fake.requests).toHaveLength(1)

      // The API's own description names the field and every kind a client may meet.
      const description = JSON.stringify(await json(await fetch(`${harness.url}/openapi.json`)))
      const kinds = ['refusal', 'content_filter', 'blocked_prompt', 'recitation', 'malformed_call', 'cut_off']
      expect(description).toContain(`"outcome":`)
      expect(description).toContain(JSON.stringify(kinds))
    } finally {
      await harness.close()
    }
  })
})
