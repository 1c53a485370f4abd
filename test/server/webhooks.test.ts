import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/agent/loop.ts'
import { loadConfig } from '../../src/config.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import type { WebhookAttempt } from '../../src/webhooks/webhook-message.ts'
import { startClusterServer } from '../scale/cluster-support.ts'
import { doneTurn, type FakeOpenAI, scriptedTurns, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { type Harness, json, postRun, runIdOf, startHarness } from './support.ts'

// A run's end is told to its webhook as the Standard Webhooks specification says, checked here with the
// specification's own library; a 500 is retried, each attempt recorded and shown; targets obey the network rules.

const secret = `whsec_${randomBytes(32).toString('base64')}`
const code = 'sekr3t-value-7731'

let fake: FakeOpenAI
let harness: Harness
let receiver: WebhookReceiver

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: () => doneTurn(`Done; the code was ${code}.`) })
  receiver = await startWebhookReceiver([500])
  harness = await startHarness({
    fake,
    browser: null,
    config: { webhookSecret: secret, webhookHosts: ['127.0.0.1', 'hooks.example.com', '169.254.169.254'] },
  })
})

afterAll(async () => {
  await harness?.close()
  await receiver?.close()
  await fake?.close()
})

interface Attempt {
  id: string
  type: string
  attempt: number
  status?: number
  delivered: boolean
}

describe('webhooks', () => {
  test("the run's end is delivered signed, retried after a 500, and each attempt is shown with the run", async () => {
    const response = await postRun(harness.url, {
      task: 'Say the code.',
      secrets: { code },
      webhook: `${receiver.url}/hook?job=7`,
    })
    expect(response.status).toBe(200)
    const id = runIdOf(response)
    await response.text()

    await until(() => receiver.received.length >= 2, { what: 'the retry after the 500' })
    const verifier = new Webhook(secret)
    const [first, second] = receiver.received
    for (const delivery of [first, second]) {
      const headers = delivery?.headers as Record<string, string>
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      expect(() => verifier.verify(delivery?.body ?? '', headers)).not.toThrow()
    }
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id'])
    const body = JSON.parse(second?.body ?? '{}')
    expect(body).toMatchObject({
      type: 'run.done',
      data: { runId: id, status: 'completed', reason: 'model_stop', result: { success: true } },
    })
    // The result is scrubbed of the run's secrets, as everything else the run writes.
    expect(second?.body).not.toContain(code)
    expect(body.data.result.text).toContain('<secret>code</secret>')
    // A forged signature is refused by the same library.
    expect(() =>
      verifier.verify(second?.body ?? '', {
        ...(second?.headers as Record<string, string>),
        'webhook-signature': 'v1,AAAA',
      }),
    ).toThrow()

    const run = await until(
      async () => {
        const view = await json<{ webhookAttempts?: Attempt[] }>(await fetch(`${harness.url}/v1/runs/${id}`))
        return view.webhookAttempts?.length === 2 && view
      },
      { what: 'both attempts in GET /v1/runs/:id' },
    )
    expect(run.webhookAttempts).toMatchObject([
      { type: 'run.done', attempt: 1, status: 500, delivered: false },
      { type: 'run.done', attempt: 2, status: 200, delivered: true },
    ])
  })

  test.each([
    ['a cloud metadata address, even listed', 'http://169.254.169.254/latest/meta-data', /cloud metadata/],
    [
      'a host outside SEXTANT_WEBHOOK_HOSTS',
      'https://elsewhere.example.net/hook',
      /not in SEXTANT_WEBHOOK_HOSTS/,
    ],
    ['the server itself, listed or not', '', /server's own address/],
    ['a URL with credentials', 'https://user:pass@hooks.example.com/hook', /credentials/],
  ])('%s is refused with 400 before the run starts', async (_, url, message) => {
    const response = await postRun(harness.url, {
      task: 'Nothing.',
      webhook: url || `${harness.url}/v1/runs`,
    })
    expect(response.status).toBe(400)
    const body = await json<{ error: { code: string; message: string } }>(response)
    expect(body.error.code).toBe('invalid_request')
    expect(body.error.message).toMatch(message)
  })

  test("an eval task's webhook obeys the same rules: a refused one is a 400 before any run", async () => {
    const response = await fetch(`${harness.url}/v1/evals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        suite: {
          defaults: { webhook: 'http://169.254.169.254/hook' },
          tasks: [
            { id: 'a', task: 'Nothing.', startUrl: 'https://example.com/', check: { resultIncludes: 'x' } },
          ],
        },
      }),
    })
    expect(response.status).toBe(400)
    expect((await json<{ error: { message: string } }>(response)).error.message).toMatch(/cloud metadata/)
  })

  test('loopback is refused unless SEXTANT_WEBHOOK_HOSTS names it; without a key the 400 says what to set', async () => {
    const open = await startHarness({ fake, browser: null, config: { webhookSecret: secret } })
    const keyless = await startHarness({ fake, browser: null })
    try {
      const loopback = await postRun(open.url, { task: 'Nothing.', webhook: `${receiver.url}/hook` })
      expect(loopback.status).toBe(400)
      expect((await json<{ error: { message: string } }>(loopback)).error.message).toMatch(
        /loopback address\. List it in SEXTANT_WEBHOOK_HOSTS/,
      )
      const unsigned = await postRun(keyless.url, {
        task: 'Nothing.',
        webhook: 'https://hooks.example.com/x',
      })
      expect(unsigned.status).toBe(400)
      const error = (await json<{ error: { code: string; message: string } }>(unsigned)).error
      expect(error.code).toBe('webhook_secret_required')
      expect(error.message).toMatch(/set SEXTANT_WEBHOOK_SECRET/)
    } finally {
      await open.close()
      await keyless.close()
    }
  })

  test('a bad SEXTANT_WEBHOOK_SECRET stops the start, naming the variable and never the value', () => {
    expect(() => loadConfig({ SEXTANT_WEBHOOK_SECRET: 'not-a-key-at-all' })).toThrow(
      /SEXTANT_WEBHOOK_SECRET: expected whsec_/,
    )
    expect(() => loadConfig({ SEXTANT_WEBHOOK_SECRET: 'not-a-key-at-all' })).not.toThrow(/not-a-key-at-all/)
    expect(
      loadConfig({ SEXTANT_WEBHOOK_SECRET: secret, SEXTANT_WEBHOOK_HOSTS: 'a.example, 127.0.0.1' }),
    ).toMatchObject({
      webhookSecret: secret,
      webhookHosts: ['a.example', '127.0.0.1'],
    })
  })
})

describe.skipIf(!hasPostgres)('webhooks on a shared store', () => {
  test("the server whose sweep ends a stopped server's run delivers that run's webhook", async () => {
    const store = new PostgresRunStore(await createTestDatabase('webhooks'))
    const sweeper = await startWebhookReceiver()
    // A run whose server is gone (another host, silent past the lease) that asked for a webhook.
    await store.createRun({
      id: 'run_orphan_webhook',
      task: 'Left behind.',
      model: 'fake/agent-model',
      createdAt: new Date().toISOString(),
      owner: { pid: 4242, host: 'a-stopped-server', id: 'stopped-owner' },
      webhook: `${sweeper.url}/ended`,
    })
    const server = await startHarness({
      fake,
      browser: null,
      store,
      heartbeatMs: 100,
      config: { webhookSecret: secret, webhookHosts: ['127.0.0.1'], heartbeatMs: 100, leaseMs: 300 },
    })
    try {
      await until(() => sweeper.received.length >= 1, { what: "the swept run's webhook" })
      const delivery = sweeper.received[0]
      const body = new Webhook(secret).verify(
        delivery?.body ?? '',
        delivery?.headers as Record<string, string>,
      )
      expect(body).toMatchObject({
        type: 'run.done',
        data: { runId: 'run_orphan_webhook', status: 'failed', reason: 'error' },
      })
      const run = await until(
        async () => {
          const view = await json<{ webhookAttempts?: Attempt[] }>(
            await fetch(`${server.url}/v1/runs/run_orphan_webhook`),
          )
          return view.webhookAttempts?.length === 1 && view
        },
        { what: 'the attempt in GET /v1/runs/:id' },
      )
      expect(run.webhookAttempts).toMatchObject([
        { type: 'run.done', attempt: 1, status: 200, delivered: true },
      ])
    } finally {
      await server.close()
      await sweeper.close()
    }
  })
})

describe.skipIf(!hasPostgres)('webhooks of queued runs', () => {
  test('a queued run taken out of the queue by DELETE has its end delivered too', async () => {
    const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
    const model = await startFakeOpenAI({ fallback: turns.fallback })
    const hooks = await startWebhookReceiver()
    const server = await startClusterServer(await createTestDatabase('qwebhooks'), model, {
      queue: true,
      maxRuns: 1,
      webhookSecret: secret,
      webhookHosts: ['127.0.0.1'],
    })
    try {
      // The one slot is held by a run waiting on its model; the next waits in the queue.
      const holding = runIdOf(
        await postRun(server.url, { task: turns.script('Hold: wait.', { hang: true }) }),
      )
      const queued = await postRun(server.url, { task: 'Never started.', webhook: `${hooks.url}/queued` })
      expect(queued.status).toBe(200)
      const queuedId = runIdOf(queued)
      await until(
        async () =>
          (await json<{ status: string }>(await fetch(`${server.url}/v1/runs/${queuedId}`))).status ===
          'queued',
        { what: 'the second run queued' },
      )
      const withdrawn = await fetch(`${server.url}/v1/runs/${queuedId}`, { method: 'DELETE' })
      expect(withdrawn.status).toBe(200)
      await until(() => hooks.received.length >= 1, { what: "the withdrawn run's webhook" })
      const delivery = hooks.received[0]
      const body = new Webhook(secret).verify(
        delivery?.body ?? '',
        delivery?.headers as Record<string, string>,
      )
      expect(body).toMatchObject({ type: 'run.done', data: { runId: queuedId, reason: 'user_abort' } })
      await fetch(`${server.url}/v1/runs/${holding}`, { method: 'DELETE' })
    } finally {
      await server.close()
      await hooks.close()
      model.close()
    }
  })
})

describe('webhooks in the library', () => {
  test('runAgent delivers its own webhook after done, signed, with attempts told to the caller', async () => {
    const library = await startWebhookReceiver([503])
    const attempts: WebhookAttempt[] = []
    try {
      const model = scriptedModel([
        { output: agentOutput({ done: { text: `Found ${code}.`, success: true } }) },
      ])
      let runId = ''
      for await (const event of runAgent({
        task: 'Find the code.',
        model,
        browser: null,
        stuck: false,
        secrets: { code },
        webhook: {
          url: `${library.url}/lib`,
          secret,
          hosts: ['127.0.0.1'],
          onAttempt: (a) => attempts.push(a),
        },
      }))
        runId = event.runId
      await until(() => attempts.some((attempt) => attempt.delivered), { what: 'the delivered retry' })
      expect(attempts.map((attempt) => attempt.status)).toEqual([503, 200])
      const delivery = library.received[1]
      const body = new Webhook(secret).verify(
        delivery?.body ?? '',
        delivery?.headers as Record<string, string>,
      )
      expect(body).toMatchObject({
        type: 'run.done',
        data: { runId, status: 'completed', reason: 'model_stop' },
      })
      expect(delivery?.body).not.toContain(code)
    } finally {
      await library.close()
    }
  })

  test('a refused webhook URL throws before the run starts', async () => {
    const run = runAgent({
      task: 't',
      model: scriptedModel([]),
      browser: null,
      webhook: { url: 'http://metadata.google.internal/hook', secret },
    })
    await expect(run.next()).rejects.toThrow(/cloud metadata/)
  })
})
