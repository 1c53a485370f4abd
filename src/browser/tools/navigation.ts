import type { Page } from 'playwright-core'
import { z } from 'zod'
import { type AnyTool, defineTool, failed, ok, sleep, type ToolResult } from '../../tool.ts'
import { navigationRefusal, normalizeUrl } from '../network-guard.ts'
import type { SessionInternals } from '../session-internals.ts'
import { attempt, explainFailure } from './attempt.ts'

/** The result of a finished navigation: where the page is now. */
async function arrivedAt(session: SessionInternals, page: Page, signal: AbortSignal, verb: string) {
  const settled = await session.settle(page, signal)
  const title = await page.title().catch(() => '')
  const where = title ? `${page.url()} ("${title.slice(0, 80)}")` : page.url()
  return ok(`${verb} ${where}${settled ? '' : '; the page is still loading'}.`)
}

/** Opens `url` in `page`, or says why it cannot: refused by policy, blocked, or failed. */
export async function openUrl(
  session: SessionInternals,
  page: Page,
  input: string,
  signal: AbortSignal,
  verb: string,
): Promise<ToolResult> {
  const url = normalizeUrl(input)
  const refusal = navigationRefusal(url, session.settings.policy)
  if (refusal) return failed(refusal)
  try {
    await page.goto(url, { waitUntil: 'commit', timeout: session.settings.navigationTimeoutMs, signal })
  } catch (error) {
    if (signal.aborted) throw error
    const message = error instanceof Error ? error.message : String(error)
    if (message.includes('ERR_BLOCKED_BY_CLIENT'))
      return failed(`Navigation to ${url} blocked: domain not in allowedDomains.`)
    return failed(`Navigation to ${url} failed: ${explainFailure(error)}`)
  }
  return arrivedAt(session, page, signal, verb)
}

export function navigationTools(session: SessionInternals): AnyTool[] {
  const navigate = defineTool({
    name: 'navigate',
    description: 'Open a URL in the active tab.',
    input: z.object({
      url: z.string().min(1).describe('The address to open, e.g. https://example.com/page'),
    }),
    execute: ({ url }, ctx) =>
      attempt(ctx, async () => openUrl(session, await session.activePage(), url, ctx.signal, 'Opened')),
  })

  const history = (name: 'go_back' | 'go_forward', description: string) =>
    defineTool({
      name,
      description,
      input: z.object({}),
      execute: (_input, ctx) =>
        attempt(ctx, async () => {
          const page = await session.activePage()
          const options = {
            waitUntil: 'commit' as const,
            timeout: session.settings.navigationTimeoutMs,
            signal: ctx.signal,
          }
          const before = page.url()
          const move = () => (name === 'go_back' ? page.goBack(options) : page.goForward(options))
          // Leaving an error page swaps the renderer, which Playwright can report as "not attached": once more.
          const direction = name === 'go_back' ? 'back' : 'forward'
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
          return arrivedAt(session, page, ctx.signal, name === 'go_back' ? 'Went back to' : 'Went forward to')
        }),
    })

  const reload = defineTool({
    name: 'reload',
    description: 'Reload the active tab.',
    input: z.object({}),
    execute: (_input, ctx) =>
      attempt(ctx, async () => {
        const page = await session.activePage()
        await page.reload({
          waitUntil: 'commit',
          timeout: session.settings.navigationTimeoutMs,
          signal: ctx.signal,
        })
        return arrivedAt(session, page, ctx.signal, 'Reloaded')
      }),
  })

  return [
    navigate,
    history('go_back', 'Go back to the previous page in the active tab.'),
    history('go_forward', 'Go forward to the next page in the active tab.'),
    reload,
  ]
}
