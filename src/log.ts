import { pino } from 'pino'

export type Logger = pino.Logger

/** Paths whose values never reach a log line. */
const redactPaths = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'password',
  '*.password',
  'input.text',
]

export interface LoggerOptions {
  level?: string
  /** Where lines go; stderr by default so stdout stays free for --json output. */
  destination?: pino.DestinationStream
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.SEXTANT_LOG_LEVEL ?? 'info',
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: undefined,
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  )
}

/** A logger that discards everything (library default: embedding code opts into logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
