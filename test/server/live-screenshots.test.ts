import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Screenshot } from '../../src/browser/browser-session.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import { actionTurn, doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness } from './support.ts'

// Without vision a step's screenshot is written while the model thinks, after its observation named
// it: a viewer that asks for it at once is answered when it is there, not with a 404.

const picture: Screenshot = {
  data: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
  mediaType: 'image/jpeg',
  width: 2,
  height: 2,
}

/** The first screenshot resolves when the test says so; later ones at once. */
const first = Promise.withResolvers<void>()
let fake: FakeOpenAI
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI()
  let taken = 0
  harness = await startHarness({
    fake,
    browser: async () => ({
      ...fakeBrowser(),
      pictures: {
        screenshot: async () => {
          if (taken++ === 0) await first.promise
          return picture
        },
        elementBox: async () => undefined,
      },
    }),
  })
})
afterAll(async () => {
  await harness?.close()
  await fake?.close()
})

test("a live step's screenshot asked for before it is written is answered once it is", async () => {
  fake.enqueue(actionTurn('click', { ref: 'b1' }), doneTurn('Clicked.'))
  const response = await postRun(harness.url, { task: 'Click Add.' })
  const id = runIdOf(response)
  const observation = events(await readSse(response, (message) => message.data.type === 'observation')).find(
    (event) => event.type === 'observation',
  )
  expect(observation).toMatchObject({ type: 'observation', screenshot: `/v1/runs/${id}/steps/1/screenshot` })
  const url = observation?.type === 'observation' ? observation.screenshot : undefined

  const asked = fetch(`${harness.url}${url}`)
  // Give the request the time to reach the server before the picture exists.
  await new Promise((resolve) => setTimeout(resolve, 100))
  first.resolve()
  const served = await asked
  expect(served.status).toBe(200)
  expect(Buffer.from(await served.arrayBuffer()).equals(picture.data)).toBe(true)

  const rest = events(await readSse(await fetch(`${harness.url}/v1/runs/${id}/events`)))
  expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  // A step that has moved on without its file is a 404, not a wait.
  expect((await fetch(`${harness.url}/v1/runs/${id}/steps/3/screenshot`)).status).toBe(404)
})
