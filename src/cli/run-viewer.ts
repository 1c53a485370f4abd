import { randomBytes } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import type { HandoverDesk } from '../agent/handover/handover-desk.ts'
import { ownOrigins } from '../browser/network/own-origins.ts'
import type { AgentEvent } from '../events/events.ts'
import type { Logger } from '../log.ts'
import { ownHostNames } from '../server/http/host-check.ts'
import { createOneRunApp } from '../server/one-run-app.ts'
import { LiveRun, type LiveRunInfo } from '../server/runs/live-run.ts'
import { settlesWithin } from '../util/deadline.ts'

/** Loopback only: a person on this machine reaches the run, nothing else on the network does. */
const host = '127.0.0.1'
/** How long the viewer's open streams get to send the run's end before their connections are cut. */
const closeGraceMs = 500

export interface RunViewer {
  /** The run's page in the viewer; its fragment carries the token, which never reaches a server or a log. */
  readonly url: string
  /** The run as the routes see it: its browser (RunOptions.onBrowser), its abort switch, its events. */
  readonly run: LiveRun
  /** This server's own addresses, which the run's browser must not reach. */
  readonly ownOrigins: string[]
  /** One of the run's events, for the viewer's page. */
  push(event: AgentEvent): void
  /** Ends the page's streams and stops listening; the run has ended. */
  close(): Promise<void>
}

/**
 * A local HTTP server for the one run `sextant run` (or `replay`) executes:
 * the viewer's run page, live frames, the takeover and a person's input, so
 * a person can do what `hand_over` asks in a headless browser. Anything on
 * the machine can reach 127.0.0.1, so /v1 needs a random token, which the
 * printed URL carries. `runsDir`: where the run keeps its step files, for
 * the page's screenshots and page views.
 */
export async function openRunViewer(
  info: LiveRunInfo,
  desk: HandoverDesk,
  log: Logger,
  runsDir?: string,
): Promise<RunViewer> {
  const run = new LiveRun(info, desk)
  const token = randomBytes(24).toString('base64url')
  const app = createOneRunApp({ run, token, allowedHosts: ownHostNames(host), log, runsDir })
  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch: app.fetch, hostname: host, port: 0 }, () =>
      resolve(created as Server),
    ) as Server
    created.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${port}/runs/${encodeURIComponent(info.id)}#token=${token}`,
    run,
    ownOrigins: ownOrigins(host, port),
    push(event) {
      run.push(event)
      // Nothing stores the run here: its end is final as soon as it is seen.
      if (event.type === 'done' && event.parentRunId === undefined) run.markFinished()
    },
    close() {
      closing ??= (async () => {
        run.browser = undefined
        run.markFinished()
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        await settlesWithin(closed, closeGraceMs)
        server.closeAllConnections()
        await closed
      })()
      return closing
    },
  }
}
