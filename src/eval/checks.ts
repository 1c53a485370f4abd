import type { RunResult } from '../events/events.ts'
import { quoteText } from '../util/text.ts'
import type { FinalPage } from './final-page.ts'
import { type Check, isRegExpLiteral, toRegExp } from './suite.ts'

/**
 * Whether a run passed: every check in its mapping must hold. Returns the
 * failed checks, each with what was found instead; a check that cannot be
 * evaluated (a bad page, a `js` expression that throws) is a failed check
 * with its message, never a crash.
 */
export function failedChecks(check: Check, result: RunResult, page: FinalPage | undefined): string[] {
  const failed: string[] = []
  const resultText = result.text.toLowerCase()
  for (const text of list(check.resultIncludes)) {
    if (!resultText.includes(text.toLowerCase()))
      failed.push(`resultIncludes: the result does not contain "${text}" (result: ${clip(result.text)})`)
  }
  if (check.resultMatches !== undefined && !toRegExp(check.resultMatches).test(result.text)) {
    failed.push(
      `resultMatches: the result does not match ${check.resultMatches} (result: ${clip(result.text)})`,
    )
  }
  if (check.urlMatches !== undefined) {
    if (page?.url === undefined) failed.push(`urlMatches: the final URL is unknown${why(page)}`)
    else if (!toRegExp(check.urlMatches).test(page.url))
      failed.push(`urlMatches: the final URL ${page.url} does not match ${check.urlMatches}`)
  }
  const pageIncludes = list(check.pageIncludes)
  if (pageIncludes.length > 0) {
    if (page?.text === undefined) failed.push(`pageIncludes: the final page could not be read${why(page)}`)
    else {
      const pageText = page.text.toLowerCase()
      for (const text of pageIncludes) {
        if (!pageText.includes(text.toLowerCase()))
          failed.push(`pageIncludes: the final page does not contain "${text}"`)
      }
    }
  }
  if (check.js !== undefined) {
    const outcome = page?.js.get(check.js)
    if (!outcome) failed.push(`js: not evaluated${why(page)}`)
    else if (!outcome.ok) failed.push(`js: ${check.js} threw: ${outcome.error}`)
    else if (outcome.value !== true)
      failed.push(`js: ${check.js} returned ${JSON.stringify(outcome.value) ?? 'undefined'}, not true`)
  }
  for (const [path, wanted] of Object.entries(check.dataMatches ?? {})) {
    const problem = dataProblem(result.data, path, wanted)
    if (problem) failed.push(`dataMatches: ${problem}`)
  }
  return failed
}

/** Why the data at `path` (dot-separated keys and indexes) is not `wanted`; undefined when it is. */
function dataProblem(
  data: unknown,
  path: string,
  wanted: string | number | boolean | null,
): string | undefined {
  if (data === undefined) return 'the run gave no data'
  let value: unknown = data
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !(key in value)) return `${path} is not in the data`
    value = (value as Record<string, unknown>)[key]
  }
  const json = JSON.stringify(value) ?? 'undefined'
  const found = json.length > 120 ? `${json.slice(0, 119)}…` : json
  if (isRegExpLiteral(wanted)) {
    const text = typeof value === 'string' ? value : json
    return toRegExp(wanted).test(text) ? undefined : `${path} is ${found}, which does not match ${wanted}`
  }
  return value === wanted ? undefined : `${path} is ${found}, not ${JSON.stringify(wanted)}`
}

/** The `js` expressions a check needs evaluated in the final page. */
export function expressionsOf(check: Check): string[] {
  return check.js === undefined ? [] : [check.js]
}

/** Whether a check reads the final page (and so needs the probe). */
export function readsPage(check: Check): boolean {
  return check.urlMatches !== undefined || check.pageIncludes !== undefined || check.js !== undefined
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

function why(page: FinalPage | undefined): string {
  if (!page) return ' (the run had no browser page)'
  return page.error ? ` (${page.error})` : ''
}

function clip(text: string): string {
  return quoteText(text.replaceAll(/\s+/g, ' ').trim(), 120)
}
