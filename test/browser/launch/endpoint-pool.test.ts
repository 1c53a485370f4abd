import { describe, expect, test } from 'vitest'
import type { BrowserSession } from '../../../src/browser/browser-session.ts'
import {
  type BrowserEndpoint,
  createEndpointPool,
  NoBrowserEndpointError,
} from '../../../src/browser/launch/endpoint-pool.ts'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { splitEndpoints } from '../../../src/config.ts'
import { silentLogger } from '../../../src/log.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'

// The spreading and failover logic over stand-in endpoints; each endpoint's own pool (one real
// browser, a context per run) is covered by the launcher's tests against Chromium.

interface FakeEndpoint {
  pool: BrowserPool
  opened: number
  /** Fail every session from now on. */
  down: boolean
}

function fakeEndpoints(count: number): { endpoints: BrowserEndpoint[]; fakes: Map<string, FakeEndpoint> } {
  const endpoints = Array.from({ length: count }, (_, index) => ({
    kind: 'ws' as const,
    url: `ws://browser-${index}:3000/`,
  }))
  const fakes = new Map<string, FakeEndpoint>()
  for (const endpoint of endpoints) {
    const live = new Set<BrowserSession>()
    const fake: FakeEndpoint = {
      opened: 0,
      down: false,
      pool: {
        async newSession() {
          if (fake.down) throw new Error(`connect ECONNREFUSED ${endpoint.url}`)
          fake.opened++
          const session = fakeBrowser()
          const close = session.close.bind(session)
          session.close = async () => {
            live.delete(session)
            await close()
          }
          live.add(session)
          return session
        },
        warm: async () => {
          if (fake.down) throw new Error('down')
        },
        close: async () => {},
        liveSessions: () => live.size,
      },
    }
    fakes.set(endpoint.url, fake)
  }
  return { endpoints, fakes }
}

const signal = new AbortController().signal

describe('a fleet of browser endpoints', () => {
  test('runs go to the endpoint with the fewest live sessions', async () => {
    const { endpoints, fakes } = fakeEndpoints(3)
    const pool = createEndpointPool({
      endpoints,
      open: (e) => fakes.get(e.url)!.pool,
      logger: silentLogger(),
    })
    const sessions = []
    for (let index = 0; index < 6; index++)
      sessions.push(await pool.newSession({ runId: `r${index}` }, signal))
    expect([...fakes.values()].map((fake) => fake.opened)).toEqual([2, 2, 2])
    // Two sessions of the first endpoint end: the next two runs go there.
    await sessions[0]!.close()
    await sessions[3]!.close()
    await pool.newSession({ runId: 'r6' }, signal)
    await pool.newSession({ runId: 'r7' }, signal)
    expect([...fakes.values()].map((fake) => fake.opened)).toEqual([4, 2, 2])
    expect(pool.health().map((health) => health.liveSessions)).toEqual([2, 2, 2])
  })

  test('an endpoint that fails is left out for a while; the run opens on the next one', async () => {
    let now = 1_000
    const { endpoints, fakes } = fakeEndpoints(2)
    const pool = createEndpointPool({
      endpoints,
      open: (e) => fakes.get(e.url)!.pool,
      cooldownMs: 30_000,
      logger: silentLogger(),
      now: () => now,
    })
    const [first, second] = [...fakes.values()] as [FakeEndpoint, FakeEndpoint]
    first.down = true
    await pool.newSession({ runId: 'moved' }, signal)
    expect([first.opened, second.opened]).toEqual([0, 1])
    expect(pool.health()).toMatchObject([
      { healthy: false, failures: 1 },
      { healthy: true, failures: 0 },
    ])
    // Back up, but still left out: the loaded endpoint takes the run.
    first.down = false
    await pool.newSession({ runId: 'still-out' }, signal)
    expect([first.opened, second.opened]).toEqual([0, 2])
    now += 30_001
    await pool.newSession({ runId: 'back' }, signal)
    expect([first.opened, second.opened]).toEqual([1, 2])
  })

  test('when no endpoint answers, the run is refused with the last error', async () => {
    const { endpoints, fakes } = fakeEndpoints(2)
    for (const fake of fakes.values()) fake.down = true
    const pool = createEndpointPool({
      endpoints,
      open: (e) => fakes.get(e.url)!.pool,
      logger: silentLogger(),
    })
    const opening = pool.newSession({ runId: 'r' }, signal)
    await expect(opening).rejects.toThrow(NoBrowserEndpointError)
    await expect(opening).rejects.toThrow(/2 browser endpoints.*ECONNREFUSED/)
  })
})

test('SEXTANT_BROWSER_WS and SEXTANT_CDP_URL take comma-separated lists', () => {
  expect(splitEndpoints(' ws://a:1/x , ws://b:2/y,')).toEqual(['ws://a:1/x', 'ws://b:2/y'])
  expect(splitEndpoints(undefined)).toEqual([])
})
