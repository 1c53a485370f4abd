import type { Page } from 'playwright-core'
import type { ConsoleEntry } from '../../events/page-log.ts'

/**
 * A page's console errors and warnings, kept in the page itself and read at each observation.
 * Listening to Playwright's console events (or reading its `page.consoleMessages()`, which
 * subscribes to them for good) has every message of the page cross to this process with one
 * object per argument: a page that logs 10,000 errors on a click held that click's own answer
 * past its timeout. Kept in the page, a message costs the page a push, and a step one read per
 * frame. The page can see and change what is kept (a global under a symbol): it is a diagnosis,
 * never a security question.
 */

const key = 'sextant.console'

/** Runs before the page's scripts in every frame: wraps console.error and console.warn. */
export function consoleHookScript(entries: number, textChars: number): string {
  return `(() => {
  const key = Symbol.for(${JSON.stringify(key)})
  if (globalThis[key]) return
  const log = { entries: [], total: 0 }
  Object.defineProperty(globalThis, key, { value: log })
  const describe = (value) => {
    try {
      if (typeof value === 'string') return value
      if (value instanceof Error) return value.name + ': ' + value.message
      return String(value)
    } catch {
      return '?'
    }
  }
  for (const [method, level] of [['error', 'error'], ['warn', 'warning']]) {
    const original = console[method]
    console[method] = function (...args) {
      log.total++
      log.entries.push({ level, text: args.map(describe).join(' ').slice(0, ${textChars}) })
      if (log.entries.length > ${entries}) log.entries.shift()
      return original.apply(this, args)
    }
  }
})()`
}

/** What a page's frames logged since they were last read, and how many messages that was in all. */
export async function takeConsole(page: Page): Promise<{ entries: ConsoleEntry[]; total: number }> {
  const taken = await Promise.all(
    page.frames().map(async (frame) => {
      const source = frame.url()
      try {
        const read = await frame.evaluate((name) => {
          const log = (globalThis as Record<symbol, unknown>)[Symbol.for(name)] as
            | { entries: { level: string; text: string }[]; total: number }
            | undefined
          if (!log) return undefined
          const kept = { entries: log.entries.splice(0), total: log.total }
          log.total = 0
          return kept
        }, key)
        return read && { ...read, source }
      } catch {
        return undefined // the frame went away meanwhile
      }
    }),
  )
  const entries: ConsoleEntry[] = []
  let total = 0
  for (const read of taken) {
    if (!read) continue
    total += read.total
    // The page may have written anything there: only well-formed entries are taken.
    for (const { level, text } of read.entries)
      if ((level === 'error' || level === 'warning') && typeof text === 'string')
        entries.push({ level, text, ...(read.source ? { source: read.source } : {}) })
  }
  return { entries, total }
}
