import { describeConsoleEntry, describeNetworkEntry, type PageLog } from '../../events/page-log.ts'
import { truncate } from '../../util/text.ts'

/** How much of a step's page log the model reads at once: the rest is one `read_console`/`read_network` away. */
const lineBounds = { items: 3, itemChars: 140 } as const

/**
 * The one short line the model reads when the page reported errors or failed
 * requests since the last step (the usual reason a form "does nothing");
 * undefined when it reported none. Console and network take turns, so a
 * burst of one does not hide the other; warnings stay in the events and
 * `read_console`.
 */
export function pageLogLine(log: PageLog): string | undefined {
  const errors = log.console
    .filter((entry) => entry.level !== 'warning')
    .map(({ source: _source, ...entry }) => describeConsoleEntry(entry))
  const requests = log.network.map(describeNetworkEntry)
  const items: string[] = []
  for (let i = 0; i < Math.max(errors.length, requests.length); i++)
    for (const item of [errors[i], requests[i]]) if (item !== undefined) items.push(item)
  if (items.length === 0) return undefined
  const total = items.length + log.omitted
  const shown = items.slice(0, lineBounds.items).map((item) => truncate(item, lineBounds.itemChars))
  const more = total > shown.length ? ` (+${total - shown.length} more: read_console, read_network)` : ''
  return `Since the last step the page reported: ${shown.join('; ')}${more}.`
}
