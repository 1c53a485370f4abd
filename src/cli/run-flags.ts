import { readFileSync, statSync } from 'node:fs'
import type { RunRequestField } from '../agent/run/run-request-fields.ts'
import { ProxyError, type ProxySettings, proxyFromUrl } from '../browser/network/upstream-proxy.ts'
import { redactUrl } from '../redact.ts'
import { artifactFlagOptions } from './artifact-flags.ts'
import { browserFlagOptions } from './browser-flags.ts'
import { UsageError } from './help.ts'

/** `sextant run`'s options (node:util parseArgs). */
export const runCommandOptions = {
  url: { type: 'string' },
  instructions: { type: 'string' },
  model: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  'max-duration': { type: 'string' },
  'allow-domain': { type: 'string', multiple: true },
  'sub-agents': { type: 'string' },
  secret: { type: 'string', multiple: true },
  var: { type: 'string', multiple: true },
  output: { type: 'string' },
  profile: { type: 'string' },
  'profile-save': { type: 'string' },
  proxy: { type: 'string' },
  traceparent: { type: 'string' },
  json: { type: 'boolean', default: false },
  headed: { type: 'boolean' },
  vision: { type: 'boolean' },
  'no-handover': { type: 'boolean' },
  ...browserFlagOptions,
  ...artifactFlagOptions,
  help: { type: 'boolean', short: 'h' },
} as const

/**
 * The run request's fields as `sextant run` takes them: the CLI's view of the
 * schema (the task is the positional argument). A field without a flag has
 * its reason in test/agent/run/run-request.test.ts.
 */
export const runRequestFlags: Partial<Record<RunRequestField, keyof typeof runCommandOptions>> = {
  startUrl: 'url',
  instructions: 'instructions',
  model: 'model',
  maxTurns: 'max-turns',
  maxSessionTokens: 'max-tokens',
  maxCostUsd: 'max-cost',
  maxDurationMs: 'max-duration',
  allowedDomains: 'allow-domain',
  subAgents: 'sub-agents',
  secrets: 'secret',
  variables: 'var',
  output: 'output',
  profile: 'profile',
  profileSave: 'profile-save',
  proxy: 'proxy',
  // And the other context flags: --viewport, --locale, --timezone, --geolocation, --grant, --header, … (browser-flags.ts).
  browser: 'device',
  traceparent: 'traceparent',
  vision: 'vision',
  handover: 'no-handover',
  // And --video, --har (artifact-flags.ts).
  artifacts: 'trace',
}

/** `--max-tokens 200000`: total tokens, children included. */
export function readMaxTokens(value: string): number {
  const tokens = /^\d{1,12}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN
  if (!(tokens >= 1))
    throw new UsageError(`--max-tokens takes a whole number of tokens above 0, got "${value}".`)
  return tokens
}

/** `--sub-agents N`: the model may dispatch up to N sub-agents at once (children do not dispatch). */
export function readSubAgents(value: string): number {
  const max = /^\d{1,2}$/.test(value) ? Number(value) : Number.NaN
  if (!(max >= 1 && max <= 10))
    throw new UsageError(`--sub-agents takes a number from 1 to 10, got "${value}".`)
  return max
}

/** `--max-cost 0.50`: dollars, more than 0. */
export function readMaxCost(value: string): number {
  const usd = /^\$?\d+(\.\d+)?$/.test(value.trim()) ? Number(value.trim().replace('$', '')) : Number.NaN
  if (!(usd > 0 && usd <= 10_000))
    throw new UsageError(`--max-cost takes dollars above 0 (at most 10000), e.g. 0.50, got "${value}".`)
  return usd
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** `--max-duration 90s` (ms, s, m or h; a bare number is seconds): milliseconds. */
export function readDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim())
  const ms = match ? Math.round(Number(match[1]) * (durationUnits[match[2] ?? 's'] ?? 1000)) : Number.NaN
  if (!(ms >= 1 && ms <= 7 * 24 * 3_600_000))
    throw new UsageError(
      `--max-duration takes a time such as 90s, 10m or 1h (at most 7 days), got "${value}".`,
    )
  return ms
}

/** `--var name=value`, repeatable. */
export function readVariables(flags: string[]): Record<string, string> {
  const variables: Record<string, string> = {}
  for (const flag of flags) {
    const match = /^([A-Za-z_][\w.-]*)=(.*)$/s.exec(flag)
    if (!match) throw new UsageError(`--var takes name=value, got "${flag}".`)
    variables[match[1] ?? ''] = match[2] ?? ''
  }
  return variables
}

/**
 * `--secret name=ENV_VAR`, repeatable: the value is read from the environment,
 * never from the command line, where other users and shell histories see it.
 */
export function readSecrets(flags: string[], env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  if (flags.length === 0) return undefined
  const secrets: Record<string, string> = {}
  for (const flag of flags) {
    const match = /^([A-Za-z_][A-Za-z0-9_.-]{0,63})=([A-Za-z_][A-Za-z0-9_]*)$/.exec(flag)
    if (!match) {
      throw new UsageError(
        `--secret takes name=ENV_VAR (the value is read from the environment variable, never given on the command line), got "${flag.split('=')[0]}=…".`,
      )
    }
    const [, name = '', variable = ''] = match
    const value = env[variable]
    if (value === undefined || value === '') {
      throw new UsageError(
        `--secret ${name}=${variable}: the environment variable ${variable} is not set (or empty); export it first.`,
      )
    }
    secrets[name] = value
  }
  return secrets
}

/**
 * `--instructions FILE|TEXT`: a value that names a file is read from it (a site's rules kept beside the
 * job), any other value is the instructions themselves; the request's schema bounds their length.
 */
export function readInstructions(value: string): string {
  let isFile = false
  try {
    isFile = statSync(value).isFile()
  } catch {
    // Not a path to a file: the value is the text.
  }
  if (!isFile) return value
  try {
    return readFileSync(value, 'utf8')
  } catch (error) {
    throw new UsageError(`--instructions ${value}: cannot read the file: ${(error as Error).message}`)
  }
}

/** `--url`: an http(s) URL, normalized. */
export function checkUrl(value: string): string {
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href
  } catch {
    // Reported below.
  }
  throw new UsageError(`--url must be an http(s) URL, got "${redactUrl(value)}".`)
}

/** `--proxy http://[user:password@]host:port`: the credentials leave the address and are handled as secrets. */
export function readProxy(value: string): ProxySettings {
  try {
    return proxyFromUrl(value)
  } catch (error) {
    if (error instanceof ProxyError) throw new UsageError(error.message)
    throw error
  }
}
