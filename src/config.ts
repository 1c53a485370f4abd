import { z } from 'zod'
import {
  artifactList,
  booleanOr,
  booleanSetting,
  hostList,
  integer,
  splitEndpoints,
  url,
  urlList,
  webhookKey,
} from './config-values.ts'
import { redactUrl } from './redact.ts'

export { splitEndpoints }

/**
 * Environment variables and command-line flags → one typed, validated config.
 * A flag wins over its environment variable; an empty variable counts as unset.
 * Every bad value is reported at once, named by where it came from.
 */

/** How a run's browser presents itself to sites (src/browser/launch/identity.ts). */
export const browserIdentities = ['browser', 'automation'] as const
export type BrowserIdentity = (typeof browserIdentities)[number]

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const configFields = z.object({
  /** Default model as "provider/model". */
  model: z.string().trim().min(1).optional(),
  /** OpenAI-compatible Chat Completions endpoint, for every provider prefix but anthropic/ and google/. */
  baseUrl: url(['http:', 'https:']).optional(),
  /** Bearer key for the model endpoint (SEXTANT_API_KEY, else OPENAI_API_KEY). */
  apiKey: z.string().min(1).optional(),
  /** Key for `anthropic/…` models (ANTHROPIC_API_KEY). */
  anthropicApiKey: z.string().min(1).optional(),
  /** Another address for Anthropic's Messages API, e.g. a gateway (…/v1). */
  anthropicBaseUrl: url(['http:', 'https:']).optional(),
  /** Key for `google/…` models (GOOGLE_GENERATIVE_AI_API_KEY). */
  googleApiKey: z.string().min(1).optional(),
  /** Another address for Google's Generative Language API, e.g. a gateway (…/v1beta). */
  googleBaseUrl: url(['http:', 'https:']).optional(),
  /** The Responses API's `store` for `openai/…` models; unset: false, so OpenAI keeps no step's page view or screenshot. */
  openaiStore: booleanSetting.optional(),
  /** A JSON price file that extends and overrides the shipped model prices. */
  prices: z.string().min(1).optional(),
  port: integer(0, 65_535).default(8787),
  host: z.string().trim().min(1).default('127.0.0.1'),
  /** When set, every /v1 route needs `Authorization: Bearer <token>`. */
  apiToken: z.string().min(16, 'must be at least 16 characters (use a random string)').optional(),
  /** Extra names the server answers to in the Host header (besides its own); stops DNS rebinding. */
  allowedHosts: hostList.optional(),
  /** Every run's browser refuses private, loopback and link-local addresses (not only the server's own). */
  blockPrivateNetworks: booleanSetting.default(false),
  /** Runs may ask for `browser.ignoreHTTPSErrors` (a staging server's self-signed certificate); refused otherwise. */
  allowInsecureTls: booleanSetting.default(false),
  /** Tabs a run may have open at once; popups beyond it are closed at once. */
  maxTabs: integer(1, 100).default(10),
  /** Characters of a page title or URL kept in page views and events. */
  maxTitleChars: integer(40, 10_000).default(300),
  /** Live runs at once before POST /v1/runs answers 429. */
  maxRuns: integer(1, 256).default(4),
  /** SQLite database file (":memory:" keeps runs for this process only), or a postgres:// URL shared by many servers. */
  db: z.string().min(1).default('.sextant/sextant.db'),
  /** With a postgres:// store: POST /v1/runs queues a run instead of answering 429; any server with a free slot claims it. */
  queue: booleanSetting.default(false),
  /** With the queue: at most this many runs wait in it; beyond, POST /v1/runs answers 429 with Retry-After. */
  queueMax: integer(1, 1_000_000).optional(),
  /** With the queue: a run no server claimed within this long ends with reason `error` (a request's queueTimeoutMs wins). */
  queueTimeoutMs: integer(1_000, 7 * 24 * 3_600_000).optional(),
  /** How often a server renews the lease of its live runs. */
  heartbeatMs: integer(100, 600_000).default(5_000),
  /** A server whose lease is this old is gone: another server ends its runs as failed. */
  leaseMs: integer(300, 3_600_000).default(20_000),
  /** Where the other servers sharing the store reach this one, to relay a run's live frames, takeover and input to it; default: the address it listens on. */
  internalUrl: url(['http:', 'https:']).optional(),
  /** Proves a relayed request comes from another server of the fleet; default: derived from SEXTANT_API_TOKEN. */
  relaySecret: z.string().min(16, 'must be at least 16 characters (use a random string)').optional(),
  /** Chromium or Chrome binary to launch. */
  chromium: z.string().min(1).optional(),
  /** Playwright's browser cache, searched for Chromium; "0" (browsers inside node_modules) is not searched. */
  browsersPath: z.string().min(1).optional(),
  /** Playwright browser servers to connect to instead of launching (ws://…, comma-separated for several). */
  browserWs: urlList(['ws:', 'wss:']).optional(),
  /** Chromium DevTools endpoints to connect to over CDP (http://… or ws://…, comma-separated for several). */
  cdpUrl: urlList(['http:', 'https:', 'ws:', 'wss:']).optional(),
  /** How long a browser endpoint that failed to open a session is left out. */
  endpointCooldownMs: integer(0, 3_600_000).default(30_000),
  /** Show the browser window; `virtual`: a headed browser in a virtual display of its own (Xvfb), for servers. */
  headed: booleanOr('virtual').default(false),
  /** How the browser presents itself to sites: `browser` (no sign of automation) or `automation` (says it is automated). */
  browserIdentity: z.enum(browserIdentities).default('browser'),
  /** Unset: `serve` logs at info, `run` not at all (logs would tear through its live view). */
  logLevel: z.enum(logLevels).optional(),
  /** Default step budget of a run. */
  maxTurns: integer(1, 1000).default(40),
  /** Each run's downloads go to <runsDir>/<runId>/downloads. */
  runsDir: z.string().min(1).default('.sextant/runs'),
  /** upload_file may only send files under this folder; absent: uploads are refused. */
  uploadDir: z.string().min(1).optional(),
  /** Bound on one event's JSON: longer texts are cut, with an `event_truncated` warning. */
  maxEventBytes: integer(16 * 1024, 64 * 1024 * 1024).default(256 * 1024),
  /** Bound on one download: a larger one is cancelled, with a `download_too_large` warning. */
  maxDownloadBytes: integer(1, 2 ** 40).default(50 * 1024 * 1024),
  /** Artifacts a run keeps when its request names none (`trace`, `video`, `har`, comma-separated); default none. */
  artifacts: artifactList.optional(),
  /** Bound on one artifact (a trace, a video, a HAR): a larger one is not kept, with an `artifact_not_kept` warning. */
  maxArtifactBytes: integer(1, 2 ** 40).default(100 * 1024 * 1024),
  /** Keep each step's screenshot in <runsDir>/<runId>/steps/<n>.jpg (server and CLI; the library's default is off). */
  screenshots: booleanSetting.default(true),
  /** JPEG quality of the screenshots. */
  screenshotQuality: integer(1, 100).default(70),
  /** Screenshots of wider viewports are scaled down to this width, in pixels. */
  screenshotWidth: integer(320, 3840).default(1280),
  /** Runs show the model each step's screenshot unless they say otherwise (`vision` in the request, --vision). */
  vision: booleanSetting.default(false),
  /** Key that seals saved profiles (64 hex digits or base64 of 32 bytes); absent: a key file beside the runs folder. */
  profileKey: z.string().min(1).optional(),
  /** How long a run waits for a person who took over (or was asked for with hand_over) before it goes on. */
  handoverTimeoutMs: integer(1_000, 24 * 3_600_000).default(10 * 60_000),
  /** A run's wall-clock bound when its request sets none (maxDurationMs); absent: runs have none. */
  maxRunMs: integer(1_000, 7 * 24 * 3_600_000).optional(),
  /** How long a replay waits for a recorded element, and for a step's expectation, before it calls the step changed; absent: 8 s. */
  replayWaitMs: integer(0, 600_000).optional(),
  /** GET /v1/profiles/:name/export answers profiles' values (cookies included); off unless set. */
  profileExport: booleanSetting.default(false),
  /** An MCP session over HTTP without a task in flight closes after this long without a request. */
  mcpIdleMs: integer(1_000, 7 * 24 * 3_600_000).default(30 * 60_000),
  /** Hand-overs the model of one run may ask for; past it, hand_over answers that none are left. */
  maxHandovers: integer(0, 100).default(3),
  /** Bound on a saved profile (JSON bytes before sealing): a larger save is skipped with a warning, a larger import refused. */
  maxProfileBytes: integer(1_024, 2 ** 32).default(5_000_000),
  /** Signs runs' webhooks (Standard Webhooks); absent: a request with `webhook` is refused. */
  webhookSecret: webhookKey.optional(),
  /** The only hosts webhooks may reach; absent: any but this server, loopback and cloud metadata. */
  webhookHosts: hostList.optional(),
  /** Bound on one webhook attempt, from connecting to the answer's last byte; past it the attempt fails and is retried. */
  webhookTimeoutMs: integer(100, 300_000).default(10_000),
})

/** A browser is either launched, or reached at one endpoint: two endpoints are a mistake, never a silent choice. */
function atMostOneEndpoint(config: { browserWs?: string | undefined; cdpUrl?: string | undefined }): boolean {
  return !(config.browserWs && config.cdpUrl)
}
const twoEndpoints = {
  message: 'set only one of SEXTANT_BROWSER_WS and SEXTANT_CDP_URL',
  path: ['browserWs'],
}

export const ConfigSchema = configFields
  .refine(atMostOneEndpoint, twoEndpoints)
  .superRefine((config, ctx) => {
    // A lease must outlive its heartbeat: else servers take each other's live runs for dead between two beats.
    if (config.heartbeatMs < config.leaseMs) return
    ctx.addIssue({
      code: 'custom',
      path: ['heartbeatMs'],
      message: `is ${config.heartbeatMs} ms, not shorter than SEXTANT_LEASE_MS (${config.leaseMs} ms): a lease that lapses between two heartbeats lets other servers end this server's live runs; give a lease several heartbeats long (e.g. 5000 and 20000)`,
    })
  })

/**
 * The settings that say which browser to use: all a library caller without a
 * CLI needs, validated exactly as the CLI validates them.
 */
export const BrowserConfigSchema = configFields
  .pick({ chromium: true, browsersPath: true, browserWs: true, cdpUrl: true, browserIdentity: true })
  .refine(atMostOneEndpoint, twoEndpoints)

export type Config = z.output<typeof ConfigSchema>
export type BrowserConfig = z.output<typeof BrowserConfigSchema>
type ConfigKey = keyof Config

/** Flags as the CLI parses them; each overrides its environment variable. */
export interface ConfigFlags {
  model?: string
  port?: string
  host?: string
  headed?: boolean
  maxTurns?: string
  vision?: boolean
}

const envNames: Record<ConfigKey, string> = {
  model: 'SEXTANT_MODEL',
  baseUrl: 'SEXTANT_BASE_URL',
  apiKey: 'SEXTANT_API_KEY',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  anthropicBaseUrl: 'SEXTANT_ANTHROPIC_BASE_URL',
  googleApiKey: 'GOOGLE_GENERATIVE_AI_API_KEY',
  googleBaseUrl: 'SEXTANT_GOOGLE_BASE_URL',
  openaiStore: 'SEXTANT_OPENAI_STORE',
  prices: 'SEXTANT_PRICES',
  port: 'SEXTANT_PORT',
  host: 'SEXTANT_HOST',
  apiToken: 'SEXTANT_API_TOKEN',
  allowedHosts: 'SEXTANT_ALLOWED_HOSTS',
  blockPrivateNetworks: 'SEXTANT_BLOCK_PRIVATE',
  allowInsecureTls: 'SEXTANT_ALLOW_INSECURE_TLS',
  maxTabs: 'SEXTANT_MAX_TABS',
  maxTitleChars: 'SEXTANT_MAX_TITLE_CHARS',
  maxRuns: 'SEXTANT_MAX_RUNS',
  db: 'SEXTANT_DB',
  queue: 'SEXTANT_QUEUE',
  queueMax: 'SEXTANT_QUEUE_MAX',
  queueTimeoutMs: 'SEXTANT_QUEUE_TIMEOUT_MS',
  heartbeatMs: 'SEXTANT_HEARTBEAT_MS',
  leaseMs: 'SEXTANT_LEASE_MS',
  internalUrl: 'SEXTANT_INTERNAL_URL',
  relaySecret: 'SEXTANT_RELAY_SECRET',
  chromium: 'SEXTANT_CHROMIUM',
  browsersPath: 'PLAYWRIGHT_BROWSERS_PATH',
  browserWs: 'SEXTANT_BROWSER_WS',
  cdpUrl: 'SEXTANT_CDP_URL',
  endpointCooldownMs: 'SEXTANT_ENDPOINT_COOLDOWN_MS',
  headed: 'SEXTANT_HEADED',
  browserIdentity: 'SEXTANT_BROWSER_IDENTITY',
  logLevel: 'SEXTANT_LOG_LEVEL',
  maxTurns: 'SEXTANT_MAX_TURNS',
  runsDir: 'SEXTANT_RUNS_DIR',
  uploadDir: 'SEXTANT_UPLOAD_DIR',
  maxEventBytes: 'SEXTANT_MAX_EVENT_BYTES',
  maxDownloadBytes: 'SEXTANT_MAX_DOWNLOAD_BYTES',
  artifacts: 'SEXTANT_ARTIFACTS',
  maxArtifactBytes: 'SEXTANT_MAX_ARTIFACT_BYTES',
  screenshots: 'SEXTANT_SCREENSHOTS',
  screenshotQuality: 'SEXTANT_SCREENSHOT_QUALITY',
  screenshotWidth: 'SEXTANT_SCREENSHOT_WIDTH',
  vision: 'SEXTANT_VISION',
  handoverTimeoutMs: 'SEXTANT_HANDOVER_TIMEOUT_MS',
  maxRunMs: 'SEXTANT_MAX_RUN_MS',
  replayWaitMs: 'SEXTANT_REPLAY_WAIT_MS',
  profileKey: 'SEXTANT_PROFILE_KEY',
  profileExport: 'SEXTANT_PROFILE_EXPORT',
  mcpIdleMs: 'SEXTANT_MCP_IDLE_MS',
  maxHandovers: 'SEXTANT_MAX_HANDOVERS',
  maxProfileBytes: 'SEXTANT_MAX_PROFILE_BYTES',
  webhookSecret: 'SEXTANT_WEBHOOK_SECRET',
  webhookHosts: 'SEXTANT_WEBHOOK_HOSTS',
  webhookTimeoutMs: 'SEXTANT_WEBHOOK_TIMEOUT_MS',
}

const flagNames: Partial<Record<ConfigKey, string>> = {
  model: '--model',
  port: '--port',
  host: '--host',
  headed: '--headed',
  maxTurns: '--max-turns',
  vision: '--vision',
}

/** Every environment variable Sextant reads, for help texts and docs. */
export const configEnvironment = { ...envNames, apiKeyFallback: 'OPENAI_API_KEY' } as const

export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
    this.problems = problems
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: ConfigFlags = {}): Config {
  return parseSettings(ConfigSchema, Object.keys(envNames) as ConfigKey[], env, flags)
}

/** The browser settings alone (SEXTANT_CHROMIUM, SEXTANT_BROWSER_WS, …), for a run started without the CLI. */
export function loadBrowserConfig(env: NodeJS.ProcessEnv = process.env): BrowserConfig {
  const keys = Object.keys(BrowserConfigSchema.shape) as ConfigKey[]
  return parseSettings(BrowserConfigSchema, keys, env, {})
}

/** Reads `keys` from flags and environment, and validates them with `schema`; every problem is named by its source. */
function parseSettings<Schema extends z.ZodType>(
  schema: Schema,
  keys: ConfigKey[],
  env: NodeJS.ProcessEnv,
  flags: ConfigFlags,
): z.output<Schema> {
  const raw: Record<string, unknown> = {}
  const source: Record<string, string> = {}
  for (const key of keys) {
    const flagValue = flags[key as keyof ConfigFlags]
    const envValue = nonEmpty(env[envNames[key]])
    if (flagValue !== undefined) {
      raw[key] = flagValue
      source[key] = flagNames[key] ?? key
    } else if (envValue !== undefined) {
      raw[key] = envValue
      source[key] = envNames[key]
    }
  }
  if (keys.includes('apiKey') && raw.apiKey === undefined) {
    const fallback = nonEmpty(env.OPENAI_API_KEY)
    if (fallback !== undefined) {
      raw.apiKey = fallback
      source.apiKey = 'OPENAI_API_KEY'
    }
  }

  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '')
      const name = source[key] ?? envNames[key as ConfigKey] ?? key
      const value = raw[key]
      const shown = value === undefined || secretKeys.has(key) ? '' : ` (got "${redactUrl(String(value))}")`
      return `${name}: ${issue.message}${shown}`
    }),
  )
}

/** Settings whose values are never repeated in an error message. */
const secretKeys = new Set([
  'apiKey',
  'apiToken',
  'anthropicApiKey',
  'googleApiKey',
  'profileKey',
  'webhookSecret',
])

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

/** Whether binding to `host` keeps the server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host)
}
