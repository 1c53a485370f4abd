import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AppEnv } from '../../../src/server/http/app-env.ts'
import { answerErrors } from '../../../src/server/http/to-api-error.ts'
import { ownerRefusal, relayHeader, relayToOwner } from '../../../src/server/routes/relay.ts'
import type { LiveRun } from '../../../src/server/runs/live-run.ts'
import { capturingLogger } from '../support.ts'

// The relay carries the fleet's secret and the caller's token to the server a run is recorded under.
// An owner address that is the cloud metadata service, in any spelling, is never relayed to.

let owner = ''
let live: LiveRun | undefined
let server: ReturnType<typeof serve>
let url = ''

beforeAll(async () => {
  const app = new Hono<AppEnv>()
  answerErrors(app, capturingLogger().log)
  app.use(
    '/v1/runs/:id/live',
    relayToOwner({
      secret: 'fleet-secret',
      liveRun: () => live,
      ownerUrl: async () => owner,
      selfUrl: () => 'http://127.0.0.1:1',
      // /live reads no body (the route's own limit in app.ts's ownerRoutes).
      maxBodyBytes: 0,
    }),
  )
  app.get('/v1/runs/:id/live', (c) => c.text('handled here'))
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve())
  })
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
})

test.each([
  'http://169.254.169.254',
  'http://[::ffff:a9fe:a9fe]',
  'http://[::ffff:169.254.169.254]:8787',
  'http://[64:ff9b::a9fe:a9fe]',
  'http://[::a9fe:a9fe]',
  'http://2852039166',
  'http://metadata.google.internal.:8787',
])('a run recorded under %s is not relayed there', async (address) => {
  owner = address
  const response = await fetch(`${url}/v1/runs/run_1/live`)
  expect(response.status).toBe(503)
  expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
    /not relayed: .*cloud metadata/,
  )
})

test('fleet addresses inside (loopback, private) stay relayable', () => {
  for (const address of ['http://127.0.0.1:8787', 'http://[::ffff:7f00:1]:8787', 'http://10.0.0.5:8787'])
    expect(ownerRefusal(address), address).toBeUndefined()
})

test("a relayed request for a run this server does not run says the owner is gone, not the route's own answer", async () => {
  // The store records this address as the run's owner, but the process here is another (an address reused).
  live = undefined
  const stranger = await fetch(`${url}/v1/runs/run_1/live`, { headers: { [relayHeader]: 'fleet-secret' } })
  expect(stranger.status).toBe(503)
  expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe('owner_unreachable')
  // The route never sees a live run's methods here: the middleware only asks whether there is one.
  live = {} as LiveRun
  const owned = await fetch(`${url}/v1/runs/run_1/live`, { headers: { [relayHeader]: 'fleet-secret' } })
  expect(await owned.text()).toBe('handled here')
  live = undefined
})
