import { randomBytes } from 'node:crypto'
import type { LookupAddress } from 'node:dns'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deliverWebhook } from '../../../src/webhooks/deliver-webhook.ts'
import { WebhookRules } from '../../../src/webhooks/webhook-target.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts'
import { type Harness, json, postRun, startHarness } from '../support.ts'

// A webhook is judged by the address it reaches, whatever its spelling: at submit (the caller's 400) and at
// connect (the delivery's own check and every address its name resolves to). A local receiver must get nothing.

const secret = `whsec_${randomBytes(32).toString('base64')}`

/** Every spelling of 127.0.0.1 a URL or a DNS answer can carry. */
const loopbackSpellings = [
  '[::ffff:7f00:1]',
  '[::ffff:127.0.0.1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::7f00:1]',
  '[::ffff:0:7f00:1]',
  '[64:ff9b::7f00:1]',
  '0x7f.1',
  '2130706433',
  '0177.0.0.1',
  '127.1',
  '127.0.0.1.',
]
const metadataSpellings = [
  '[::ffff:a9fe:a9fe]',
  '[::ffff:169.254.169.254]',
  '[::a9fe:a9fe]',
  '[64:ff9b::a9fe:a9fe]',
  '[::ffff:0:a9fe:a9fe]',
  '2852039166',
  '0xa9.0xfe.0xa9.0xfe',
  'metadata.google.internal.',
]

let fake: FakeOpenAI
let receiver: WebhookReceiver
let harness: Harness
let blocking: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: () => doneTurn('Done.') })
  receiver = await startWebhookReceiver()
  harness = await startHarness({ fake, browser: null, config: { webhookSecret: secret } })
  blocking = await startHarness({
    fake,
    browser: null,
    config: { webhookSecret: secret, blockPrivateNetworks: true },
  })
})

afterAll(async () => {
  await harness?.close()
  await blocking?.close()
  await receiver?.close()
  await fake?.close()
})

const port = () => new URL(receiver.url).port

async function refusal(server: Harness, webhook: string): Promise<string> {
  const response = await postRun(server.url, { task: 'Nothing.', webhook })
  expect(response.status, webhook).toBe(400)
  return (await json<{ error: { message: string } }>(response)).error.message
}

describe('a webhook at submit', () => {
  test.each(loopbackSpellings)('loopback spelled %s is refused', async (host) => {
    expect(await refusal(harness, `http://${host}:${port()}/hook`)).toMatch(/loopback/)
    expect(receiver.received).toEqual([])
  })

  test.each(metadataSpellings)('cloud metadata spelled %s is refused', async (host) => {
    expect(await refusal(harness, `http://${host}/latest/meta-data/`)).toMatch(/cloud metadata/)
  })

  test("the server's own /v1/runs, spelled as a URL parser writes a mapped address, is refused", async () => {
    const own = new URL(harness.url).port
    expect(await refusal(harness, `http://[::ffff:7f00:1]:${own}/v1/runs`)).toMatch(/own address|loopback/)
  })

  test('under SEXTANT_BLOCK_PRIVATE private addresses are refused in every spelling, as browsers are', async () => {
    for (const host of [
      '10.0.0.1',
      '[::ffff:a00:1]',
      '167772161',
      '192.168.1.1',
      '[::ffff:c0a8:101]',
      '[fd12::1]',
    ])
      expect(await refusal(blocking, `http://${host}/hook`)).toMatch(/SEXTANT_BLOCK_PRIVATE/)
    // Without it they stay open, as they do to browsers.
    expect(new WebhookRules().check('http://10.0.0.1/hook').hostname).toBe('10.0.0.1')
    // A host SEXTANT_WEBHOOK_HOSTS names is the operator's choice and stays open.
    const named = new WebhookRules({ blockPrivateNetworks: true, hosts: ['10.0.0.1', '*.internal.example'] })
    expect(named.check('http://10.0.0.1/x').hostname).toBe('10.0.0.1')
    expect(() => named.check('http://10.0.0.2/x')).toThrow(/SEXTANT_WEBHOOK_HOSTS/)
  })
})

describe('a webhook at connect', () => {
  test.each(loopbackSpellings)(
    'a delivery to loopback spelled %s is refused and nothing is sent',
    async (host) => {
      const attempts = await deliverWebhook({
        url: `http://${host}:${port()}/hook`,
        secret,
        message: { id: 'msg_1', type: 'run.done', timestamp: new Date().toISOString(), data: {} },
        rules: new WebhookRules(),
        maxTotalMs: 0,
      })
      expect(attempts).toHaveLength(1)
      expect(attempts[0]?.delivered).toBe(false)
      expect(attempts[0]?.error).toMatch(/refused.*loopback/)
      expect(receiver.received).toEqual([])
    },
  )

  /** What the connection's lookup makes of a DNS answer for a public-looking name. */
  function connectLookup(rules: WebhookRules, answer: string): Promise<LookupAddress[] | Error> {
    const lookup = rules.lookupFor(new URL('http://hooks.example.com/hook'))
    // The answer stands in for what a hostile DNS server returns: the lookup is asked for it by its literal.
    return new Promise((resolve) =>
      lookup(answer, { all: true }, (error, addresses) =>
        resolve(error ?? (addresses as unknown as LookupAddress[])),
      ),
    )
  }

  test('a name whose DNS answer is a mapped loopback or metadata address is refused when connecting', async () => {
    const rules = new WebhookRules()
    for (const answer of ['::ffff:7f00:1', '::7f00:1', '64:ff9b::7f00:1', '::ffff:0:7f00:1'])
      expect(String(await connectLookup(rules, answer)), answer).toMatch(/loopback/)
    for (const answer of ['::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe'])
      expect(String(await connectLookup(rules, answer)), answer).toMatch(/cloud metadata/)
    expect(await connectLookup(rules, '10.0.0.1')).toEqual([{ address: '10.0.0.1', family: 4 }])
    const blockingRules = new WebhookRules({ blockPrivateNetworks: true })
    for (const answer of ['10.0.0.1', '::ffff:a00:1', '192.168.0.7'])
      expect(String(await connectLookup(blockingRules, answer)), answer).toMatch(/SEXTANT_BLOCK_PRIVATE/)
  })
})
