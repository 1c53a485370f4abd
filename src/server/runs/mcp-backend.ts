import type { McpBackend } from '../../mcp/backend.ts'
import type { StoredRun } from '../../store/run-store.ts'
import type { RunManager } from './run-manager.ts'

/** At most this many recent runs are searched for those of a status. */
const statusSearchRuns = 500

/**
 * The MCP tools' runs, through the run manager: admitted, stored and shown
 * like the API's. `viewerBase` is the viewer's origin when a server shows runs
 * (`/mcp`), absent for `sextant mcp` over stdio.
 */
export function managerBackend(manager: RunManager, viewerBase?: string): McpBackend {
  return {
    start: (request) => manager.start(request),
    follow: async function* (runId, signal) {
      for await (const event of manager.follow(runId, -1, signal)) {
        if (event.type !== 'queue_position') yield event
      }
    },
    abort: async (runId) => {
      await manager.abort(runId)
    },
    reply: async (message) => {
      await manager.reply(message)
    },
    listRuns: async ({ limit, status }) => {
      const found: StoredRun[] = []
      let cursor: string | undefined
      for (let searched = 0; found.length < limit && searched < statusSearchRuns; ) {
        const page = await manager.store.listRuns({
          limit: status ? 100 : limit,
          ...(cursor === undefined ? {} : { cursor }),
        })
        searched += page.runs.length
        // Live runs are fresher in memory than in the store (steps so far).
        const runs = page.runs.map((run) => manager.get(run.id)?.snapshot() ?? run)
        found.push(...runs.filter((run) => status === undefined || run.status === status))
        cursor = page.nextCursor
        if (cursor === undefined) break
      }
      return found.slice(0, limit)
    },
    getRun: async (runId) => {
      const view = await manager.view(runId)
      if (!view) return undefined
      const waiting = manager.get(runId)?.isTakenOver === true
      return {
        ...view,
        children: await manager.store.childRuns(runId),
        ...(waiting ? { waitingForPerson: true as const } : {}),
      }
    },
    viewerUrl: (runId) => (viewerBase === undefined ? undefined : `${viewerBase}/runs/${runId}`),
  }
}
