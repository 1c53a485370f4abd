import type { Page, Response } from 'playwright-core'
import { z } from 'zod'
import { stringField } from '../../recording/action-descriptor.ts'
import { type AnyTool, failed, sleep, type ToolResult } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { truncate } from '../../util/text.ts'
import { refusedHeader } from '../network/guard-proxy.ts'
import { navigationRefusal, normalizeUrl } from '../network/navigation-guard.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { type Arrival, arrival, type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { explainFailure } from './explain-failure.ts'

/** Opens `url` in `page`, or says why it cannot: refused by policy, blocked, or failed. */
export async function openUrl(
  session: BrowserToolSurface,
  page: Page,
  input: string,
  signal: AbortSignal,
  verb: string,
): Promise<ToolResult | Arrival> {
  const url = normalizeUrl(input)
  const refusal = navigationRefusal(url, session.settings.policy)
  if (refusal) return failed(refusal)
  let response: Response | null
  try {
    response = await page.goto(url, {
      waitUntil: 'commit',
      timeout: session.settings.navigationTimeoutMs,
      signal,
    })
  } catch (error) {
    if (signal.aborted) throw error
    if (describeError(error).includes('ERR_BLOCKED_BY_CLIENT'))
      return failed(`Navigation to ${url} blocked: domain not in allowedDomains.`)
    return failed(`Navigation to ${url} failed: ${explainFailure(error)}`)
  }
  // A redirect hop the guard refused ends in its 403 page: the model must read "refused", not "Opened".
  if (response?.headers()[refusedHeader]) {
    const why = await response.text().catch(() => 'outside the allowed network')
    return failed(`Navigation to ${truncate(url, 300)} refused: ${truncate(why.trim(), 300)}`)
  }
  return arrival(page, verb)
}

export const navigateAction: BrowserActionDescriptor = {
  name: 'navigate',
  description: 'Open a URL.',
  effect: 'destructive',
  docs: { input: '`{ url }`', does: 'opens a URL in the active tab (inside `allowedDomains`)' },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: (step, { text }) => [`await page.goto(at(${text(stringField(step.input, 'url'))}))`],
}

// Read-only as in Playwright MCP: moving through the tab's own history submits nothing new.
export const goBackAction: BrowserActionDescriptor = {
  name: 'go_back',
  description: 'Go back a page.',
  effect: 'readOnly',
  docs: { input: '`{}`', does: "goes back in the active tab's history" },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: () => ['await page.goBack()'],
}

export const goForwardAction: BrowserActionDescriptor = {
  name: 'go_forward',
  description: 'Go forward a page.',
  effect: 'readOnly',
  docs: { input: '`{}`', does: "goes forward in the active tab's history" },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: () => ['await page.goForward()'],
}

// A reload may send a form again.
export const reloadAction: BrowserActionDescriptor = {
  name: 'reload',
  description: 'Reload the page.',
  effect: 'destructive',
  docs: { input: '`{}`', does: 'reloads the active tab' },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: () => ['await page.reload()'],
}

export function navigationTools(session: BrowserToolSurface): AnyTool[] {
  const navigate = defineBrowserTool(session, {
    action: navigateAction,
    input: z.object({
      url: z.string().min(1),
    }),
    run: async ({ url }, ctx) => openUrl(session, await session.activePage(), url, ctx.signal, 'Opened'),
  })

  const history = (action: BrowserActionDescriptor, back: boolean) =>
    defineBrowserTool(session, {
      action,
      input: z.object({}),
      run: async (_input, ctx) => {
        const page = await session.activePage()
        const options = {
          waitUntil: 'commit' as const,
          timeout: session.settings.navigationTimeoutMs,
          signal: ctx.signal,
        }
        const before = page.url()
        const move = () => (back ? page.goBack(options) : page.goForward(options))
        // Leaving an error page swaps the renderer, which Playwright can report as "not attached": once more.
        const direction = back ? 'back' : 'forward'
        let response: Awaited<ReturnType<typeof move>>
        try {
          response = await move().catch(async (error: unknown) => {
            if (!String(error).includes('Not attached to an active page')) throw error
            await sleep(300, ctx.signal)
            return move()
          })
        } catch (error) {
          if (ctx.signal.aborted) throw error
          return failed(`Going ${direction} failed: ${explainFailure(error)}`)
        }
        // Same-document entries (#hash) answer null too, but they change the URL.
        if (response === null && page.url() === before) {
          return failed(`There is no page to go ${direction} to.`)
        }
        return arrival(page, back ? 'Went back to' : 'Went forward to')
      },
    })

  const reload = defineBrowserTool(session, {
    action: reloadAction,
    input: z.object({}),
    run: async (_input, ctx) => {
      const page = await session.activePage()
      await page.reload({
        waitUntil: 'commit',
        timeout: session.settings.navigationTimeoutMs,
        signal: ctx.signal,
      })
      return arrival(page, 'Reloaded')
    },
  })

  return [navigate, history(goBackAction, true), history(goForwardAction, false), reload]
}
