import type { Page } from 'playwright-core'
import type { ConsoleEntry } from '../../events/page-log.ts'

/**
 * A page's console errors and warnings, kept in the page itself and read at each observation.
 * Listening to Playwright's console events (or reading its `page.consoleMessages()`, which
 * subscribes to them for good) has every message of the page cross to this process with one
 * object per argument: a page that logs 10,000 errors on a click held that click's own answer
 * past its timeout. Kept in the page, a message costs the page a push, and a step one read per
 * frame. The page can write what it likes through the wrappers, or drain the reader: what it
 * logged is a diagnosis, never a security question; only the size of the answer is held.
 */

/**
 * Runs before the page's scripts in every frame: wraps console.error and console.warn, and defines the
 * one reader of what they kept, on each frame's global under `readerName` (a session's random name, defined
 * before the page's scripts, so the page can neither replace it nor find "sextant" in it). The page may call the wrappers and the reader, and change every
 * prototype; the reader answers from its own closure with the intrinsics it took before the page ran,
 * so what it returns stays bounded: at most `entries` entries of at most `textChars` characters.
 */
export function consoleHookScript(readerName: string, entries: number, textChars: number): string {
  return `(() => {
  if (Object.prototype.hasOwnProperty.call(globalThis, ${JSON.stringify(readerName)})) return
  const apply = Reflect.apply
  const slice = String.prototype.slice
  const kept = []
  let total = 0
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
      total++
      let text = ''
      for (let i = 0; i < args.length && text.length < ${textChars}; i++) text += (i ? ' ' : '') + describe(args[i])
      kept[kept.length] = { level, text: apply(slice, text, [0, ${textChars}]) }
      // Kept to the last ${entries} a read returns, compacted in place now and then (no prototype method).
      if (kept.length >= ${2 * entries}) {
        for (let i = 0; i < ${entries}; i++) kept[i] = kept[kept.length - ${entries} + i]
        kept.length = ${entries}
      }
      return apply(original, this, args)
    }
  }
  const read = () => {
    const from = kept.length > ${entries} ? kept.length - ${entries} : 0
    const out = []
    for (let i = from; i < kept.length; i++) {
      const text = kept[i].text
      out[out.length] = { level: kept[i].level, text: typeof text === 'string' ? apply(slice, text, [0, ${textChars}]) : '' }
    }
    const answer = { entries: out, total }
    kept.length = 0
    total = 0
    return answer
  }
  Object.defineProperty(globalThis, ${JSON.stringify(readerName)}, { value: read, writable: false, configurable: false })
})()`
}

/** What a page's frames logged since they were last read, and how many messages that was in all. */
export async function takeConsole(
  page: Page,
  readerName: string,
): Promise<{ entries: ConsoleEntry[]; total: number }> {
  const taken = await Promise.all(
    page.frames().map(async (frame) => {
      const source = frame.url()
      try {
        const read = await frame.evaluate((name) => {
          const reader = (globalThis as unknown as Record<string, unknown>)[name]
          return typeof reader === 'function'
            ? (reader() as { entries: { level: string; text: string }[]; total: number })
            : undefined
        }, readerName)
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
