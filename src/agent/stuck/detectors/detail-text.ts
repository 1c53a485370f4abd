import { truncate } from '../../../util/text.ts'
import { describeAction, quote } from '../normalize.ts'
import type { TraceAction, Transition } from '../trace.ts'

/** A URL shortened for a note: host and path, without the scheme. */
export function shortUrl(url: string, maxChars = 80): string {
  const text = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  return truncate(text, maxChars)
}

/**
 * The distinct actions among some transitions, most frequent first, each with
 * its count and last result: `click {"ref":"b7xk"} (3×, last result "Clicked button 'Save'.")`.
 */
export function summarizeActions(transitions: Transition[], key: (action: TraceAction) => string): string {
  const groups = new Map<string, { count: number; last: Transition; action: TraceAction }>()
  for (const transition of transitions) {
    const { action } = transition
    if (!action) continue
    const actionId = key(action)
    const group = groups.get(actionId)
    if (group) {
      group.count++
      group.last = transition
      group.action = action
    } else groups.set(actionId, { count: 1, last: transition, action })
  }
  const parts = [...groups.values()]
    .sort((first, second) => second.count - first.count)
    .slice(0, 3)
    .map(({ count, last, action: lastAction }) => {
      const action = describeAction(lastAction)
      const result = last.result ? `, last result ${quote(last.result.text)}` : ''
      return `${action} (${count}×${result})`
    })
  const more = groups.size > 3 ? ` and ${groups.size - 3} other actions` : ''
  return `${parts.join('; ')}${more}`
}
