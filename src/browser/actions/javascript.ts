import { z } from 'zod'
import { notExported } from '../../recording/action-descriptor.ts'
import { failed, isAbortError, ok } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { pageName } from '../view/page-name.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'

const maxResultChars = 4000
const scriptTimeoutMs = 30_000

// biome-ignore lint/complexity/useArrowFunction: the constructor of async functions is only reachable from one.
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (
  ...args: string[]
) => unknown

/** Whether `script` parses as a single expression (`document.title`) rather than statements. Parses, never runs. */
export function isExpression(script: string): boolean {
  try {
    new AsyncFunction('signal', `return (${script}\n)`)
    return true
  } catch {
    return false
  }
}

/**
 * The page-side program: runs the script as the body of an async function
 * with `signal` in scope (aborted when the run is), and returns its result as
 * capped JSON, with DOM nodes, functions and cycles described rather than lost.
 */
function pageProgram(script: string, abortKey: string): string {
  const body = isExpression(script) ? `return (${script}\n)` : script
  return `(async () => {
  const controller = new AbortController()
  globalThis[${JSON.stringify(abortKey)}] = controller
  try {
    const value = await (async (signal) => {\n${body}\n})(controller.signal)
    const seen = new WeakSet()
    const json = JSON.stringify(value, (key, item) => {
      if (typeof item === 'function') return '[function]'
      if (typeof item === 'bigint') return item.toString()
      if (typeof Node !== 'undefined' && item instanceof Node) {
        if (!(item instanceof Element)) return '[' + item.nodeName + ']'
        return '<' + item.tagName.toLowerCase() + (item.id ? '#' + item.id : '') + '>' + (item.textContent || '').trim().slice(0, 80)
      }
      if (item && typeof item === 'object') {
        if (seen.has(item)) return '[circular]'
        seen.add(item)
      }
      return item
    })
    return json === undefined ? 'undefined' : json
  } finally {
    delete globalThis[${JSON.stringify(abortKey)}]
  }
})()`
}

export const executeJavascriptAction: BrowserActionDescriptor = {
  name: 'execute_javascript',
  description:
    'Run JavaScript in the page (an async function body or a bare expression; `signal` aborts on stop); answers with its JSON result.',
  effect: 'destructive',
  docs: {
    input: '`{ script }`',
    does: 'runs the script as the body of an async function in the page, `signal` in scope; needs confirmation by default',
  },
  // What a script changed is its own business: unchanged is no stall.
  stuck: 'observes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function executeJavascriptTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: executeJavascriptAction,
    input: z.object({ script: z.string().min(1) }),
    requiresConfirmation: true,
    run: async ({ script }, ctx) => {
      const page = await session.activePage()
      const abortKey = pageName('__')
      const onAbort = () => {
        page
          .evaluate((key) => {
            const controller = (globalThis as unknown as Record<string, AbortController | undefined>)[key]
            controller?.abort()
          }, abortKey)
          .catch(() => {})
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true })
      let result: string
      try {
        result = await withDeadline(
          page.evaluate(pageProgram(script, abortKey)),
          scriptTimeoutMs,
          ctx.signal,
          'script',
        )
      } catch (error) {
        if (ctx.signal.aborted || isAbortError(error)) throw error
        const message = describeError(error)
        const first = (message.split('\n')[0] ?? message).replace(/^page\.evaluate: /, '')
        return failed(`The script failed: ${first.slice(0, 500)}`)
      } finally {
        ctx.signal.removeEventListener('abort', onAbort)
      }
      const text = String(result)
      const capped =
        text.length > maxResultChars
          ? `${text.slice(0, maxResultChars)}… (${text.length - maxResultChars} more characters)`
          : text
      return ok(`Result: ${capped}`)
    },
  })
}
