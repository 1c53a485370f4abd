import type { BrowserSession, BrowserSessionFactory } from '../browser/browser-session.ts'
import type { ToolResult } from '../tool.ts'
import { describeError } from '../util/describe-error.ts'

/** What the checks read of the page a run ended on, taken just before its browser closed. */
export interface FinalPage {
  url?: string
  /** The page's readable text (what read_page answers). */
  text?: string
  /** Each `js` check's expression → its JSON result, or why it failed. */
  js: Map<string, { ok: true; value: unknown } | { ok: false; error: string }>
  /** Why the page could not be read at all. */
  error?: string
}

/**
 * How long the probe may take: under runAgent's 5 s deadline for closing the
 * browser, after which the run would end without waiting for the probe.
 */
const probeTimeoutMs = 4_000

/**
 * Wraps a session factory so that the one session it opens is probed just
 * before it closes: the final URL, the readable text and the `js` checks'
 * expressions. runAgent closes its session after the last step, so the page
 * probed is the one the run ended on, and runAgent itself needs no hook.
 */
export function probingSessions(
  factory: BrowserSessionFactory,
  expressions: string[],
): { factory: BrowserSessionFactory; finalPage: () => FinalPage | undefined } {
  let finalPage: FinalPage | undefined
  const wrapped: BrowserSessionFactory = async (options, signal) => {
    const session = await factory(options, signal)
    let closing: Promise<void> | undefined
    const close = () => {
      closing ??= (async () => {
        finalPage = await probe(session, expressions)
        await session.close()
      })()
      return closing
    }
    // Everything but close() is the session's own: a wrapper listing methods dropped the optional
    // ones (screenshots, recording targets, the browser's health, finish()) from every eval run.
    const probed = new Proxy(session, {
      get: (target, key) => {
        if (key === 'close') return close
        const value: unknown = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    return probed
  }
  return { factory: wrapped, finalPage: () => finalPage }
}

/** Reads the page through the session's own tools, with a signal of its own: the run's is aborted by now. */
async function probe(session: BrowserSession, expressions: string[]): Promise<FinalPage> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), probeTimeoutMs)
  const tools = new Map(session.tools().map((tool) => [tool.name, tool]))
  const run = async (name: string, input: unknown): Promise<ToolResult> => {
    const tool = tools.get(name)
    if (!tool) return { ok: false, text: `the session has no ${name} tool` }
    return tool.execute(tool.input.parse(input), {
      signal: controller.signal,
      runId: 'eval-probe',
      step: 0,
      callId: `probe_${name}`,
      emit: () => {},
    })
  }
  const page: FinalPage = { js: new Map() }
  try {
    const url = await evaluate(run, 'location.href')
    if (url.ok && typeof url.value === 'string') page.url = url.value
    const text = await run('read_page', {})
    if (text.ok) page.text = text.text
    for (const expression of expressions) page.js.set(expression, await evaluate(run, expression))
  } catch (error) {
    page.error = describeError(error)
  } finally {
    clearTimeout(timer)
  }
  return page
}

/** Runs an expression with execute_javascript and reads back its JSON value. */
async function evaluate(
  run: (name: string, input: unknown) => Promise<ToolResult>,
  expression: string,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const result = await run('execute_javascript', { script: expression })
  if (!result.ok) return { ok: false, error: result.text }
  const json = result.text.replace(/^Result: /, '')
  try {
    return { ok: true, value: json === 'undefined' ? undefined : JSON.parse(json) }
  } catch {
    return { ok: true, value: json }
  }
}
