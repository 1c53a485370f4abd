import { readFileSync } from 'node:fs'
import type { ContextSettings } from '../browser/session/context-settings.ts'
import { UsageError } from './help.ts'

/** `sextant run`'s flags for the run's browser context (the request's `browser`), as node:util parseArgs takes them. */
export const browserFlagOptions = {
  device: { type: 'string' },
  viewport: { type: 'string' },
  locale: { type: 'string' },
  timezone: { type: 'string' },
  geolocation: { type: 'string' },
  grant: { type: 'string', multiple: true },
  'color-scheme': { type: 'string' },
  'user-agent': { type: 'string' },
  header: { type: 'string', multiple: true },
  'ignore-https-errors': { type: 'boolean' },
  'init-script': { type: 'string', multiple: true },
} as const

type BrowserFlags = {
  device?: string | undefined
  viewport?: string | undefined
  locale?: string | undefined
  timezone?: string | undefined
  geolocation?: string | undefined
  grant?: string[] | undefined
  'color-scheme'?: string | undefined
  'user-agent'?: string | undefined
  header?: string[] | undefined
  'ignore-https-errors'?: boolean | undefined
  'init-script'?: string[] | undefined
}

/**
 * The flags as the request's `browser` field; the request's schema checks each value (a device name, a
 * time zone, a header it refuses) and names the field when one is wrong. Undefined when none is given.
 */
export function readBrowserFlags(flags: BrowserFlags): Record<string, unknown> | undefined {
  const settings: Record<string, unknown> = {}
  if (flags.device !== undefined) settings.device = flags.device
  if (flags.viewport !== undefined) settings.viewport = readSize(flags.viewport)
  if (flags.locale !== undefined) settings.locale = flags.locale
  if (flags.timezone !== undefined) settings.timezoneId = flags.timezone
  if (flags.geolocation !== undefined) settings.geolocation = readPlace(flags.geolocation)
  if (flags.grant !== undefined) settings.permissions = flags.grant
  if (flags['color-scheme'] !== undefined) settings.colorScheme = flags['color-scheme']
  if (flags['user-agent'] !== undefined) settings.userAgent = flags['user-agent']
  if (flags.header !== undefined) settings.extraHTTPHeaders = readHeaders(flags.header)
  if (flags['ignore-https-errors']) settings.ignoreHTTPSErrors = true
  if (flags['init-script'] !== undefined) settings.initScripts = flags['init-script'].map(readScript)
  return Object.keys(settings).length > 0 ? (settings as ContextSettings) : undefined
}

/** `--viewport 390x844`. */
function readSize(value: string): { width: number; height: number } {
  const match = /^(\d{2,5})[x×](\d{2,5})$/.exec(value.trim())
  if (!match)
    throw new UsageError(`--viewport takes WIDTHxHEIGHT in CSS pixels, e.g. 390x844, got "${value}".`)
  return { width: Number(match[1]), height: Number(match[2]) }
}

/** `--geolocation 52.52,13.40`. */
function readPlace(value: string): { latitude: number; longitude: number } {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value)
  if (!match)
    throw new UsageError(`--geolocation takes LATITUDE,LONGITUDE, e.g. 52.52,13.40, got "${value}".`)
  return { latitude: Number(match[1]), longitude: Number(match[2]) }
}

/** `--header 'Name: value'`, repeatable; a value is never echoed, since headers carry credentials. */
function readHeaders(flags: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const flag of flags) {
    const colon = flag.indexOf(':')
    if (colon < 1) throw new UsageError(`--header takes "Name: value", got a value without a name and colon.`)
    headers[flag.slice(0, colon).trim()] = flag.slice(colon + 1).trim()
  }
  return headers
}

/** `--init-script FILE`: the script's text. */
function readScript(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`--init-script ${path}: cannot read the file: ${(error as Error).message}`)
  }
}
