import { createRequire } from 'node:module'
import type { BrowserContextOptions } from 'playwright-core'
import { z } from 'zod'

/*
 * The browser context a run asks for: a device, a viewport, a locale and time zone, a place, permissions,
 * a colour scheme, a user agent, headers and init scripts. Everything here is applied through Playwright's
 * own context options, behind the run's network guard: none of it widens what the run may reach.
 */

type DeviceDescriptor = {
  userAgent: string
  viewport: { width: number; height: number }
  screen?: { width: number; height: number }
  deviceScaleFactor: number
  isMobile: boolean
  hasTouch: boolean
}

/**
 * Playwright's named devices, loaded only when a request names one: the request's schema is read by every
 * CLI command, most of which never load Playwright.
 */
function deviceDescriptors(): Readonly<Record<string, DeviceDescriptor>> {
  const { devices } = createRequire(import.meta.url)('playwright-core') as {
    devices: Record<string, DeviceDescriptor>
  }
  return devices
}

/** Permissions Chromium grants through Playwright (its `grantPermissions` list). */
export const contextPermissions = [
  'accelerometer',
  'ambient-light-sensor',
  'background-sync',
  'camera',
  'clipboard-read',
  'clipboard-write',
  'geolocation',
  'gyroscope',
  'local-fonts',
  'magnetometer',
  'microphone',
  'midi',
  'midi-sysex',
  'notifications',
  'payment-handler',
  'storage-access',
  'screen-wake-lock',
] as const

/**
 * Headers a run may not set. `Host` and the forwarding headers would let a run steer a reverse proxy or a
 * virtual host to what `allowedDomains` or the server's own addresses forbid; `Cookie` would slip past the
 * profile's domain rules; the rest belong to the browser's own framing and proxying.
 */
const forbiddenHeaders = [
  /^host$/,
  /^cookie$/,
  /^forwarded$/,
  /^x-forwarded-/,
  /^x-real-ip$/,
  /^x-original-(url|host)$/,
  /^x-rewrite-url$/,
  /^x-host$/,
  /^proxy-/,
  /^sec-/,
  /^(connection|content-length|transfer-encoding|te|trailer|upgrade|keep-alive|expect)$/,
]

/** An init script runs in every page of the run, before the page's own scripts: bounded like a request body. */
export const initScriptLimits = { count: 10, totalChars: 64 * 1024 }

/** Why a header name is refused, or undefined when a run may send it. */
function headerProblem(name: string): string | undefined {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name)) return 'is not an HTTP header name'
  if (forbiddenHeaders.some((pattern) => pattern.test(name.toLowerCase())))
    return 'is not a header a run may set (Host, Cookie, forwarding, proxy, Sec- and framing headers are refused)'
  return undefined
}

const size = (max: number) => z.number().int().min(100).max(max)

export const ContextSettingsSchema = z
  .strictObject({
    device: z
      .string()
      .max(100)
      .refine((name) => Object.hasOwn(deviceDescriptors(), name), {
        message: 'must be one of Playwright\'s device names, e.g. "iPhone 15", "Pixel 7", "Desktop Chrome"',
      })
      .optional()
      .describe(
        'A device of Playwright\'s list ("iPhone 15", "Pixel 7", …): its viewport, screen, scale, touch and mobile layout; the user agent stays the browser\'s own, with the device\'s platform.',
      ),
    viewport: z
      .strictObject({ width: size(3840), height: size(2160) })
      .optional()
      .describe("The page's size in CSS pixels (over the device's); default 1280×800."),
    locale: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, 'must be a BCP 47 language tag, e.g. "de-DE"')
      .optional()
      .describe('navigator.language, Accept-Language and Intl (default "en-US").'),
    timezoneId: z
      .string()
      .max(64)
      .refine(isTimeZone, { message: 'must be an IANA time zone, e.g. "Europe/Berlin"' })
      .optional()
      .describe('The time zone the page reads (IANA, e.g. "Europe/Berlin").'),
    geolocation: z
      .strictObject({
        latitude: z.number().min(-90).max(90),
        longitude: z.number().min(-180).max(180),
        accuracy: z.number().min(0).max(100_000).optional(),
      })
      .optional()
      .describe(
        'Where navigator.geolocation says the browser is (grant "geolocation" for pages to read it).',
      ),
    permissions: z
      .array(z.enum(contextPermissions))
      .max(contextPermissions.length)
      .optional()
      .describe('Permissions granted to every page of the run, e.g. ["geolocation", "clipboard-read"].'),
    colorScheme: z.enum(['light', 'dark', 'no-preference']).optional(),
    userAgent: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[^\r\n]*$/, 'must be one line')
      .optional()
      .describe("The user agent, over the browser's own."),
    extraHTTPHeaders: z
      .record(
        z.string(),
        z
          .string()
          .max(4096)
          .regex(/^[^\r\n]*$/, 'must be one line'),
      )
      .superRefine((headers, ctx) => {
        const names = Object.keys(headers)
        if (names.length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 headers' })
        for (const name of names) {
          const problem = headerProblem(name)
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem })
        }
      })
      .optional()
      .describe(
        "Headers sent with every request of the run; their values are treated as the run's secrets (never stored or shown). Host, Cookie, forwarding, proxy, Sec- and framing headers are refused.",
      ),
    ignoreHTTPSErrors: z
      .boolean()
      .optional()
      .describe(
        "Accept invalid TLS certificates (a staging server's self-signed one); refused unless the server allows it (SEXTANT_ALLOW_INSECURE_TLS).",
      ),
    initScripts: z
      .array(z.string().min(1))
      .max(initScriptLimits.count)
      .refine(
        (scripts) => scripts.reduce((sum, script) => sum + script.length, 0) <= initScriptLimits.totalChars,
        {
          message: `must be at most ${initScriptLimits.totalChars} characters in all`,
        },
      )
      .optional()
      .describe(
        "JavaScript run in every page before the page's own scripts, as the page's own code (with no more privilege than the page).",
      ),
  })
  .describe(
    'The browser context of the run: device, viewport, locale, time zone, place, permissions, headers.',
  )
export type ContextSettings = z.infer<typeof ContextSettingsSchema>

/** What the run's events and recording keep of its context: all but its headers, whose values may be credentials. */
export function recordedContext(settings: ContextSettings): Omit<ContextSettings, 'extraHTTPHeaders'> {
  const { extraHTTPHeaders: _headers, ...kept } = settings
  return kept
}

/** A run asked for a context the server does not allow. */
export class ContextSettingsError extends Error {
  override name = 'ContextSettingsError'
}

/**
 * A run's `ignoreHTTPSErrors` turns off the check that the page is the site it claims to be: only an
 * operator may allow it (SEXTANT_ALLOW_INSECURE_TLS), never a caller alone.
 */
export function refuseInsecureTls(settings: ContextSettings | undefined, allowed: boolean): void {
  if (settings?.ignoreHTTPSErrors && !allowed)
    throw new ContextSettingsError(
      'browser.ignoreHTTPSErrors is refused: this server does not accept invalid TLS certificates for its runs (its operator may allow it with SEXTANT_ALLOW_INSECURE_TLS=1).',
    )
}

/** Header values long enough to be a credential (a token, a key) are scrubbed wherever they would be written. */
const credentialMinChars = 8

/** The values of a run's headers that must be scrubbed like its secrets. */
export function contextCredentials(
  settings: ContextSettings | undefined,
): { label: string; value: string }[] {
  return Object.entries(settings?.extraHTTPHeaders ?? {})
    .filter(([, value]) => value.length >= credentialMinChars)
    .map(([name, value]) => ({ label: `header ${name}`, value }))
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/**
 * The context options of a run's settings, over the session's defaults. `ownUserAgent` is the browser's
 * own (as its identity presents it): a device keeps it and takes the device's platform, since a user agent
 * naming another browser than the one that answers is a mismatch sites check for.
 */
export function contextSettingsOptions(
  settings: ContextSettings,
  ownUserAgent: string | undefined,
): BrowserContextOptions {
  const device = settings.device === undefined ? undefined : deviceDescriptors()[settings.device]
  const options: BrowserContextOptions = {}
  if (device) {
    options.viewport = device.viewport
    options.screen = device.screen ?? device.viewport
    options.deviceScaleFactor = device.deviceScaleFactor
    options.isMobile = device.isMobile
    options.hasTouch = device.hasTouch
    if (ownUserAgent) options.userAgent = withPlatformOf(ownUserAgent, device)
  }
  if (settings.viewport) options.viewport = settings.viewport
  if (settings.locale) options.locale = settings.locale
  if (settings.timezoneId) options.timezoneId = settings.timezoneId
  if (settings.geolocation) options.geolocation = settings.geolocation
  if (settings.permissions) options.permissions = [...settings.permissions]
  if (settings.colorScheme) options.colorScheme = settings.colorScheme
  if (settings.userAgent) options.userAgent = settings.userAgent
  if (settings.extraHTTPHeaders) options.extraHTTPHeaders = settings.extraHTTPHeaders
  if (settings.ignoreHTTPSErrors) options.ignoreHTTPSErrors = true
  return options
}

/** `Mozilla/5.0 (X11; Linux x86_64) … Chrome/1xx Safari/537.36` with the device's platform, and `Mobile` on a phone. */
function withPlatformOf(own: string, device: DeviceDescriptor): string {
  const platform = /\(([^)]*)\)/.exec(device.userAgent)?.[1]
  let agent = platform ? own.replace(/\([^)]*\)/, `(${platform})`) : own
  if (device.isMobile && !/ Mobile /.test(agent)) agent = agent.replace(/ Safari\//, ' Mobile Safari/')
  return agent
}
