import { z } from 'zod'

/**
 * What the run's pages reported between two observations: their console's
 * errors and warnings, uncaught exceptions, and requests that failed (status
 * 400 and above, a connection that failed) or that the network guard refused.
 * An observation event carries the entries new since the step before; the
 * actions `read_console` and `read_network` read the recent ones. Texts and
 * URLs are cut (browser/session/page-log.ts keeps the bounds), URLs lose
 * their query (where tokens travel), and every text is scrubbed of secrets.
 */

export const ConsoleEntrySchema = z.object({
  /** `exception`: a script threw and nothing caught it. */
  level: z.enum(['error', 'warning', 'exception']),
  text: z.string(),
  /** The script or page the message came from, when the browser said. */
  source: z.string().optional(),
})
export type ConsoleEntry = z.infer<typeof ConsoleEntrySchema>

export const NetworkEntrySchema = z.object({
  method: z.string(),
  /** The request's URL without its query and fragment; an origin alone when the guard refused a connection. */
  url: z.string(),
  /** The answer's status, when there was an answer. */
  status: z.number().int().optional(),
  /** Why the request got no answer: the browser's error (`net::ERR_CONNECTION_REFUSED`). */
  failure: z.string().optional(),
  /** Why the run's network guard refused it (`not in allowedDomains`). */
  refused: z.string().optional(),
  /** What the page asked for: `fetch`, `xhr`, `document`, `script`, `image`… */
  resourceType: z.string().optional(),
})
export type NetworkEntry = z.infer<typeof NetworkEntrySchema>

export const PageLogSchema = z.object({
  console: z.array(ConsoleEntrySchema),
  /** Only failed and refused requests. */
  network: z.array(NetworkEntrySchema),
  /** Entries that came meanwhile and are not listed (the page reported more than a step keeps). */
  omitted: z.number().int().nonnegative(),
})
export type PageLog = z.infer<typeof PageLogSchema>

/** A request that failed or was refused, as opposed to one answered below 400. */
export function isFailedRequest(entry: NetworkEntry): boolean {
  return entry.refused !== undefined || entry.failure !== undefined || (entry.status ?? 0) >= 400
}

/** One line for a person or the model: `console error "x is undefined"`, `POST http://…/api/save → 500`. */
export function describeConsoleEntry(entry: ConsoleEntry): string {
  const from = entry.source ? ` (${entry.source})` : ''
  const what = entry.level === 'exception' ? 'uncaught exception' : `console ${entry.level}`
  return `${what} ${JSON.stringify(entry.text)}${from}`
}

export function describeNetworkEntry(entry: NetworkEntry): string {
  const outcome =
    entry.refused !== undefined
      ? `refused: ${entry.refused}`
      : entry.failure !== undefined
        ? `failed: ${entry.failure}`
        : String(entry.status ?? '?')
  return `${entry.method} ${entry.url} → ${outcome}`
}
