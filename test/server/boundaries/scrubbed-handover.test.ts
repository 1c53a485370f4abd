import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { actionTurn, doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { until } from '../../support/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// Every text the model writes is scrubbed of the run's secrets, whatever the field is called: the
// `hand_over` reason reaches the takeover_started event, the store and the run.takeover_started webhook.

const secret = `whsec_${randomBytes(32).toString('base64')}`
const canary = 'Hand0ver-canary/7731'

let fake: FakeOpenAI
let harness: Harness
let receiver: WebhookReceiver

beforeAll(async () => {
  fake = await startFakeOpenAI()
  receiver = await startWebhookReceiver()
  harness = await startHarness({
    fake,
    browser: null,
    config: { handoverTimeoutMs: 1000, webhookSecret: secret, webhookHosts: ['127.0.0.1'] },
  })
})

afterAll(async () => {
  await harness?.close()
  await receiver?.close()
  await fake?.close()
})

test("a secret the model writes in hand_over's reason reaches no event, store or webhook", async () => {
  fake.enqueue(
    actionTurn('hand_over', { reason: `Type the code ${canary} into the box` }),
    doneTurn('Gave up.', false),
  )
  const response = await postRun(harness.url, {
    task: 'Sign in.',
    secrets: { code: { value: canary, domains: ['127.0.0.1'] } },
    webhook: `${receiver.url}/hook`,
  })
  const id = runIdOf(response)
  const list = events(await readSse(response))
  const started = list.find((event) => event.type === 'takeover_started')
  expect(started).toMatchObject({ by: 'model', reason: expect.stringContaining('Type the code') })
  expect(JSON.stringify(started)).not.toContain(canary)
  expect(JSON.stringify(await harness.store.events(id))).toContain('takeover_started')
  expect(JSON.stringify(await harness.store.events(id))).not.toContain(canary)
  await until(() => receiver.received.some((hook) => hook.body.includes('run.takeover_started')))
  const hook = receiver.received.find((hook) => hook.body.includes('run.takeover_started'))
  expect(hook?.body).toContain('Type the code')
  expect(hook?.body).not.toContain(canary)
})
