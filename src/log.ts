import { pino } from 'pino'
import { createRedactor, type Redactor } from './redact.ts'

export type Logger = pino.Logger
export type LogLevel = pino.LevelWithSilent

export interface LoggerOptions {
  /** From the config (SEXTANT_LOG_LEVEL): the logger reads no environment itself. */
  level: LogLevel
  /** Where lines go; stderr by default so stdout stays free for --json output. */
  destination?: pino.DestinationStream
  /** What counts as secret in a log line; the same rule as in events by default. */
  redactor?: Redactor
}

export function createLogger(options: LoggerOptions): Logger {
  const redactor = options.redactor ?? createRedactor()
  // Every field of every line goes through the redactor, at any depth, so a log line hides exactly
  // what an event hides. (A child's bindings are not: pino formats them once, and they are the
  // code's own context, like runId, never data.)
  const redact = (fields: Record<string, unknown>) => redactor.redact(fields) as Record<string, unknown>
  return pino(
    {
      level: options.level,
      formatters: { log: redact },
      base: undefined,
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  )
}

/**
 * A child of `log` whose lines are also scrubbed of a run's secret values, in
 * every field (an Error's message and stack included). Messages are the
 * code's own text: a message built from data must be scrubbed by its caller.
 */
export function scrubbingLogger(log: Logger, scrub: (text: string) => string): Logger {
  const redactor = createRedactor({ scrub })
  return log.child(
    {},
    { formatters: { log: (fields) => redactor.redact(fields) as Record<string, unknown> } },
  )
}

/** A logger that discards everything (library default: embedding code opts into logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
