import { z } from 'zod'
import { describeConsoleEntry, describeNetworkEntry } from '../../../events/page-log.ts'
import { notExported } from '../../../recording/action-descriptor.ts'
import { ok } from '../../../tool.ts'
import type { BrowserToolSurface } from '../../session/tool-surface.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from '../define-action.ts'

/** Entries an answer lists, newest last: enough to find the cause, few enough to keep the step small. */
const readCount = 30

export const readConsoleAction: BrowserActionDescriptor = {
  name: 'read_console',
  description: 'Recent console errors and warnings.',
  effect: 'readOnly',
  docs: {
    input: '`{}`',
    does: "the run's pages' recent console errors and warnings and uncaught exceptions (the last 30, secrets scrubbed)",
  },
  stuck: 'observes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function readConsoleTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: readConsoleAction,
    input: z.object({}),
    run: async (_input, ctx) => {
      await session.pageLog.readConsoles(ctx.signal)
      const entries = session.pageLog.recentConsole(readCount)
      if (entries.length === 0) return ok('The page logged no errors or warnings.')
      return ok(entries.map(describeConsoleEntry).join('\n'))
    },
  })
}

export const readNetworkAction: BrowserActionDescriptor = {
  name: 'read_network',
  description: 'Recent requests; failedOnly: failed ones only.',
  effect: 'readOnly',
  docs: {
    input: '`{ failedOnly? }`',
    does: "the run's recent requests with their status, or only those that failed (status 400 and above, no answer) or that the network guard refused (the last 30; URLs without their query)",
  },
  stuck: 'observes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function readNetworkTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: readNetworkAction,
    input: z.object({ failedOnly: z.boolean().optional() }),
    run: async ({ failedOnly = false }) => {
      const entries = session.pageLog.recentRequests(readCount, failedOnly)
      if (entries.length === 0)
        return ok(failedOnly ? 'No request failed.' : 'The page made no requests yet.')
      return ok(entries.map(describeNetworkEntry).join('\n'))
    },
  })
}
