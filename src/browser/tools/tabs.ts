import { z } from 'zod'
import { type AnyTool, defineTool, failed, ok } from '../../tool.ts'
import { navigationRefusal, normalizeUrl } from '../network-guard.ts'
import type { SessionInternals } from '../session-internals.ts'
import type { Tab } from '../tabs.ts'
import { attempt } from './attempt.ts'
import { openUrl } from './navigation.ts'

const tabInput = z.string().min(1).describe('Tab id from the page view header, e.g. t2')

function unknownTab(session: SessionInternals, id: string): string {
  const open = session.tabs.all.map((tab) => tab.id).join(', ')
  return `There is no tab ${JSON.stringify(id)}. Open tabs: ${open || 'none'}.`
}

async function describeTab(tab: Tab): Promise<string> {
  const title = await tab.page.title().catch(() => '')
  return `${tab.id} (${title ? `"${title.slice(0, 60)}", ` : ''}${tab.page.url().slice(0, 150)})`
}

export function tabTools(session: SessionInternals): AnyTool[] {
  const openTab = defineTool({
    name: 'open_tab',
    description: 'Open a URL in a new tab, which becomes the active tab.',
    input: z.object({ url: z.string().min(1) }),
    execute: ({ url }, ctx) =>
      attempt(ctx, async () => {
        const refusal = navigationRefusal(normalizeUrl(url), session.settings.policy)
        if (refusal) return failed(`${refusal} No tab was opened.`)
        const tab = await session.tabs.open()
        const result = await openUrl(session, tab.page, url, ctx.signal, `Opened tab ${tab.id} at`)
        if (!result.ok) {
          await session.tabs.close(tab).catch(() => {})
          return failed(`${result.text} The tab was closed again.`)
        }
        return result
      }),
  })

  const switchTab = defineTool({
    name: 'switch_tab',
    description: 'Make another open tab the active one.',
    input: z.object({ tab: tabInput }),
    execute: ({ tab: id }, ctx) =>
      attempt(ctx, async () => {
        const tab = session.tabs.find(id)
        if (!tab) return failed(unknownTab(session, id))
        session.tabs.activate(tab)
        await tab.page.bringToFront().catch(() => {})
        return ok(`Switched to tab ${await describeTab(tab)}.`)
      }),
  })

  const closeTab = defineTool({
    name: 'close_tab',
    description:
      'Close a tab. When the active tab closes, the most recently opened remaining tab becomes active.',
    input: z.object({ tab: tabInput }),
    execute: ({ tab: id }, ctx) =>
      attempt(ctx, async () => {
        const tab = session.tabs.find(id)
        if (!tab) return failed(unknownTab(session, id))
        await session.tabs.close(tab)
        const active = await session.tabs.active()
        return ok(`Closed tab ${tab.id}. Active tab: ${await describeTab(active)}.`)
      }),
  })

  return [openTab, switchTab, closeTab]
}
