import { z } from 'zod'
import { notExported } from '../../recording/action-descriptor.ts'
import { type AnyTool, failed, ok } from '../../tool.ts'
import { navigationRefusal, normalizeUrl } from '../network/navigation-guard.ts'
import type { Tab } from '../session/tabs.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { type BrowserActionDescriptor, defineBrowserTool, isArrival } from './define-action.ts'
import { openUrl } from './navigation.ts'

const tabInput = z.string().min(1)

function unknownTab(session: BrowserToolSurface, id: string): string {
  const open = session.tabs.all.map((tab) => tab.id).join(', ')
  return `There is no tab ${JSON.stringify(id)}. Open tabs: ${open || 'none'}.`
}

async function describeTab(tab: Tab): Promise<string> {
  const title = await tab.page.title().catch(() => '')
  return `${tab.id} (${title ? `"${title.slice(0, 60)}", ` : ''}${tab.page.url().slice(0, 150)})`
}

export const openTabAction: BrowserActionDescriptor = {
  name: 'open_tab',
  description: 'Open a URL in a new active tab.',
  effect: 'destructive',
  docs: { input: '`{ url }`', does: 'opens a URL in a new tab, which becomes the active one' },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export const switchTabAction: BrowserActionDescriptor = {
  name: 'switch_tab',
  description: 'Make another tab (its id in the page view, e.g. t2) active.',
  effect: 'readOnly',
  docs: { input: '`{ tab }`', does: 'makes another open tab the active one (ids such as `t2`)' },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export const closeTabAction: BrowserActionDescriptor = {
  name: 'close_tab',
  description: 'Close a tab; if it was active, the last opened one left becomes active.',
  effect: 'destructive',
  docs: { input: '`{ tab }`', does: 'closes a tab; the most recently opened remaining tab becomes active' },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function tabTools(session: BrowserToolSurface): AnyTool[] {
  // Destructive like navigate: loading a URL is the same act in a new tab.
  const openTab = defineBrowserTool(session, {
    action: openTabAction,
    input: z.object({ url: z.string().min(1) }),
    run: async ({ url }, ctx) => {
      const refusal = navigationRefusal(normalizeUrl(url), session.settings.policy)
      if (refusal) return failed(`${refusal} No tab was opened.`)
      const tab = await session.tabs.open()
      const outcome = await openUrl(session, tab.page, url, ctx.signal, `Opened tab ${tab.id} at`)
      if (isArrival(outcome)) return outcome
      await session.tabs.close(tab).catch(() => {})
      return failed(`${outcome.text} The tab was closed again.`)
    },
  })

  const switchTab = defineBrowserTool(session, {
    action: switchTabAction,
    input: z.object({ tab: tabInput }),
    run: async ({ tab: id }) => {
      const tab = session.tabs.find(id)
      if (!tab) return failed(unknownTab(session, id))
      session.tabs.activate(tab)
      await tab.page.bringToFront().catch(() => {})
      return ok(`Switched to tab ${await describeTab(tab)}.`)
    },
  })

  const closeTab = defineBrowserTool(session, {
    action: closeTabAction,
    input: z.object({ tab: tabInput }),
    run: async ({ tab: id }) => {
      const tab = session.tabs.find(id)
      if (!tab) return failed(unknownTab(session, id))
      await session.tabs.close(tab)
      const active = await session.tabs.active()
      return ok(`Closed tab ${tab.id}. Active tab: ${await describeTab(active)}.`)
    },
  })

  return [openTab, switchTab, closeTab]
}
