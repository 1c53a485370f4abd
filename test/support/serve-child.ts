/**
 * A Sextant server in its own process, for tests that kill one (kill -9):
 * configured from SEXTANT_* like `sextant serve`, with the fake browser of
 * test/support/fake-browser.ts instead of Chromium, so a test of the store
 * and the servers does not start browsers. Prints `{"url": …}` once listening.
 */
import { runAgent } from '../../src/agent/loop.ts'
import { loadConfig } from '../../src/config.ts'
import { createLogger } from '../../src/log.ts'
import { startServer } from '../../src/server/server.ts'
import { openRunStore } from '../../src/store/open-store.ts'
import { fakeBrowser } from './fake-browser.ts'

const config = loadConfig(process.env)
const log = createLogger({ level: config.logLevel ?? 'silent' })
// As `sextant serve` opens it: the runs of owners gone (on SEXTANT_LEASE_MS) are ended first.
const { store } = await openRunStore(config.db, { leaseMs: config.leaseMs })
const server = await startServer({
  config,
  store,
  // FAKE_BROWSER_PICTURES=1: screenshots, live frames and input without Chromium; downloads kept as a server keeps them.
  browser: async (session) =>
    fakeBrowser({
      pictures: process.env.FAKE_BROWSER_PICTURES === '1',
      ...(session.keepDownload ? { keepDownload: session.keepDownload } : {}),
      ...(session.artifacts ? { artifacts: session.artifacts } : {}),
    }),
  runAgent,
  log,
})
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`)
process.on('SIGTERM', () => {
  void server.close().then(async () => {
    await store.close()
    process.exit(0)
  })
})
