import { truncate } from '../../../util/text.ts'
import { describeAction, quote } from '../normalize.ts'
import type { Transition } from '../trace.ts'

/** A URL shortened for a note: host and path, without the scheme. */
export function shortUrl(url: string, maxChars = 80): string {
  const text = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  return truncate(text, maxChars)
}

/**
 * The distinct actions among some transitions, most frequent first, each with
 * its count and last result: `click {"ref":"b7xk"} (3×, last result "Clicked button 'Save'.")`.
 */
export function summarizeActions(transitions: Transition[], key: (transition: Transition) => string): string {
  const groups = new Map<string, { count: number; last: Transition }>()
  for (const transition of transitions) {
    if (!transition.action) continue
    const k = key(transition)
    const group = groups.get(k)
    if (group) {
      group.count++
      group.last = transition
    } else groups.set(k, { count: 1, last: transition })
  }
  const parts = [...groups.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, 3)
    .map(({ count, last }) => {
      const action = describeAction(last.action!)
      const result = last.result ? `, last result ${quote(last.result.text)}` : ''
      return `${action} (${count}×${result})`
    })
  const more = groups.size > 3 ? ` and ${groups.size - 3} other actions` : ''
  return `${parts.join('; ')}${more}`
}
