import { describe, expect, test } from 'vitest'
import { ConfigError, isLoopbackHost, loadBrowserConfig, loadConfig } from '../../src/config.ts'

describe('loadConfig', () => {
  test('a heartbeat not shorter than the lease is refused, the default lease included', () => {
    expect(() => loadConfig({ SEXTANT_HEARTBEAT_MS: '20000' })).toThrow(
      /SEXTANT_HEARTBEAT_MS: is 20000 ms, not shorter than SEXTANT_LEASE_MS \(20000 ms\)/,
    )
    expect(() => loadConfig({ SEXTANT_LEASE_MS: '4000' })).toThrow(
      /not shorter than SEXTANT_LEASE_MS \(4000 ms\)/,
    )
    expect(loadConfig({ SEXTANT_HEARTBEAT_MS: '1000', SEXTANT_LEASE_MS: '4000' })).toMatchObject({
      heartbeatMs: 1000,
      leaseMs: 4000,
    })
  })

  test('the queue settings: its bound and its default timeout', () => {
    expect(loadConfig({ SEXTANT_QUEUE_MAX: '50', SEXTANT_QUEUE_TIMEOUT_MS: '60000' })).toMatchObject({
      queueMax: 50,
      queueTimeoutMs: 60_000,
    })
    expect(() => loadConfig({ SEXTANT_QUEUE_MAX: '0' })).toThrow(
      /SEXTANT_QUEUE_MAX: expected an integer from 1/,
    )
  })

  test('defaults with an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      maxRuns: 4,
      db: '.sextant/sextant.db',
      blockPrivateNetworks: false,
      allowInsecureTls: false,
      headed: false,
      browserIdentity: 'browser',
      maxHandovers: 3,
      maxProfileBytes: 5_000_000,
      webhookTimeoutMs: 10_000,
      mcpIdleMs: 1_800_000,
      maxTurns: 40,
      runsDir: '.sextant/runs',
      maxEventBytes: 262_144,
      maxDownloadBytes: 52_428_800,
      maxArtifactBytes: 104_857_600,
      maxTabs: 10,
      maxTitleChars: 300,
      screenshots: true,
      screenshotQuality: 70,
      screenshotWidth: 1280,
      vision: false,
      queue: false,
      heartbeatMs: 5000,
      leaseMs: 20_000,
      endpointCooldownMs: 30_000,
      handoverTimeoutMs: 600_000,
      profileExport: false,
    })
  })

  test('every environment variable is read and typed', () => {
    const config = loadConfig({
      SEXTANT_MODEL: 'openai/gpt-4.1-mini',
      SEXTANT_BASE_URL: 'http://localhost:11434/v1',
      SEXTANT_API_KEY: 'sk-1',
      OPENAI_API_KEY: 'sk-2',
      SEXTANT_PORT: '9000',
      SEXTANT_HOST: '0.0.0.0',
      SEXTANT_API_TOKEN: 'a-token-of-sixteen+',
      SEXTANT_MAX_RUNS: '8',
      SEXTANT_DB: '/tmp/x.db',
      SEXTANT_CHROMIUM: '/usr/bin/chromium',
      PLAYWRIGHT_BROWSERS_PATH: '/opt/browsers',
      SEXTANT_CDP_URL: 'http://127.0.0.1:9222',
      SEXTANT_HEADED: 'yes',
      SEXTANT_BROWSER_IDENTITY: 'automation',
      SEXTANT_LOG_LEVEL: 'debug',
      SEXTANT_MAX_TURNS: '12',
      SEXTANT_RUNS_DIR: '/tmp/runs',
      SEXTANT_UPLOAD_DIR: '/tmp/uploads',
      SEXTANT_ALLOWED_HOSTS: 'sextant.example.com, *.corp.example',
      SEXTANT_BLOCK_PRIVATE: 'on',
      SEXTANT_ALLOW_INSECURE_TLS: '1',
      SEXTANT_MAX_TABS: '5',
      SEXTANT_MAX_TITLE_CHARS: '120',
      SEXTANT_MAX_EVENT_BYTES: '65536',
      SEXTANT_MAX_DOWNLOAD_BYTES: '1000',
      SEXTANT_ARTIFACTS: 'trace, HAR',
      SEXTANT_MAX_ARTIFACT_BYTES: '2000',
      SEXTANT_SCREENSHOTS: 'off',
      SEXTANT_SCREENSHOT_QUALITY: '55',
      SEXTANT_SCREENSHOT_WIDTH: '800',
      SEXTANT_VISION: 'on',
      SEXTANT_QUEUE: '1',
      SEXTANT_HEARTBEAT_MS: '250',
      SEXTANT_LEASE_MS: '1500',
      SEXTANT_ENDPOINT_COOLDOWN_MS: '5000',
      SEXTANT_PROFILE_KEY: 'ab'.repeat(32),
      SEXTANT_PROFILE_EXPORT: '1',
      SEXTANT_HANDOVER_TIMEOUT_MS: '60000',
      SEXTANT_WEBHOOK_TIMEOUT_MS: '2500',
    })
    expect(config).toEqual({
      model: 'openai/gpt-4.1-mini',
      baseUrl: 'http://localhost:11434/v1',
      apiKey: 'sk-1',
      port: 9000,
      host: '0.0.0.0',
      apiToken: 'a-token-of-sixteen+',
      maxRuns: 8,
      db: '/tmp/x.db',
      chromium: '/usr/bin/chromium',
      browsersPath: '/opt/browsers',
      cdpUrl: 'http://127.0.0.1:9222',
      headed: true,
      browserIdentity: 'automation',
      maxHandovers: 3,
      maxProfileBytes: 5_000_000,
      webhookTimeoutMs: 2_500,
      mcpIdleMs: 1_800_000,
      logLevel: 'debug',
      maxTurns: 12,
      runsDir: '/tmp/runs',
      uploadDir: '/tmp/uploads',
      allowedHosts: ['sextant.example.com', '*.corp.example'],
      blockPrivateNetworks: true,
      allowInsecureTls: true,
      maxTabs: 5,
      maxTitleChars: 120,
      maxEventBytes: 65_536,
      maxDownloadBytes: 1000,
      artifacts: { trace: true, har: true },
      maxArtifactBytes: 2000,
      screenshots: false,
      screenshotQuality: 55,
      screenshotWidth: 800,
      vision: true,
      queue: true,
      heartbeatMs: 250,
      leaseMs: 1500,
      endpointCooldownMs: 5000,
      profileKey: 'ab'.repeat(32),
      profileExport: true,
      handoverTimeoutMs: 60_000,
    })
  })

  test('OPENAI_API_KEY is the fallback key; empty variables count as unset', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-2', SEXTANT_API_KEY: '' }).apiKey).toBe('sk-2')
    expect(loadConfig({ SEXTANT_PORT: '  ' }).port).toBe(8787)
  })

  test('flags win over the environment', () => {
    const config = loadConfig(
      { SEXTANT_PORT: '9000', SEXTANT_MODEL: 'a/b', SEXTANT_HEADED: 'false' },
      { port: '9100', model: 'c/d', headed: true, maxTurns: '3' },
    )
    expect(config).toMatchObject({ port: 9100, model: 'c/d', headed: true, maxTurns: 3 })
  })

  test('SEXTANT_ARTIFACTS names artifacts: none is none, and an unknown one is refused by name', () => {
    expect(loadConfig({ SEXTANT_ARTIFACTS: 'none' }).artifacts).toEqual({})
    expect(() => loadConfig({ SEXTANT_ARTIFACTS: 'trace,screenshots' })).toThrow(
      /SEXTANT_ARTIFACTS: not an artifact: screenshots \(expected trace, video, har\)/,
    )
  })

  test('every bad value is reported at once, named by where it came from', () => {
    let error: unknown
    try {
      loadConfig(
        {
          SEXTANT_PORT: 'eighty',
          SEXTANT_ALLOWED_HOSTS: 'ok.example, bad host:80',
          SEXTANT_MAX_RUNS: '0',
          SEXTANT_BASE_URL: 'localhost:11434',
          SEXTANT_HEADED: 'maybe',
          SEXTANT_LOG_LEVEL: 'loud',
          SEXTANT_API_TOKEN: 'short',
          SEXTANT_BROWSER_WS: 'http://not-ws',
        },
        { maxTurns: '-1' },
      )
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    const { problems, message } = error as ConfigError
    expect(problems).toEqual([
      'SEXTANT_BASE_URL: expected a URL starting with http:// or https:// (got "localhost:11434")',
      'SEXTANT_PORT: expected an integer from 0 to 65535 (got "eighty")',
      'SEXTANT_API_TOKEN: must be at least 16 characters (use a random string)',
      expect.stringMatching(/^SEXTANT_ALLOWED_HOSTS: not a host name: bad host:80 /),
      'SEXTANT_MAX_RUNS: expected an integer from 1 to 256 (got "0")',
      'SEXTANT_BROWSER_WS: expected a URL starting with ws:// or wss://, or several separated by commas (got "http://not-ws")',
      'SEXTANT_HEADED: expected one of 1, true, yes, on, 0, false, no, off, or virtual (got "maybe")',
      expect.stringMatching(/^SEXTANT_LOG_LEVEL: .*"info".*\(got "loud"\)$/),
      '--max-turns: expected an integer from 1 to 1000 (got "-1")',
    ])
    expect(message).toMatch(/^Invalid configuration:\n {2}- /)
    // Secrets are never echoed.
    expect(message).not.toContain('short')
  })

  test('SEXTANT_BROWSER_WS takes a comma-separated fleet; one bad URL among them is refused', () => {
    expect(loadConfig({ SEXTANT_BROWSER_WS: 'ws://a:1/x, ws://b:1/x' }).browserWs).toBe(
      'ws://a:1/x,ws://b:1/x',
    )
    expect(() => loadConfig({ SEXTANT_BROWSER_WS: 'ws://a:1/x,http://b' })).toThrow(/SEXTANT_BROWSER_WS/)
  })

  test('only one of SEXTANT_BROWSER_WS and SEXTANT_CDP_URL', () => {
    expect(() => loadConfig({ SEXTANT_BROWSER_WS: 'ws://a:1/x', SEXTANT_CDP_URL: 'http://a:2' })).toThrow(
      /set only one of SEXTANT_BROWSER_WS and SEXTANT_CDP_URL/,
    )
  })

  test('the browser settings alone are read and refused as the whole configuration is', () => {
    const env = {
      SEXTANT_CHROMIUM: '/usr/bin/chromium',
      PLAYWRIGHT_BROWSERS_PATH: '/opt/browsers',
      SEXTANT_BROWSER_WS: 'ws://a:1/x',
      // Not a browser setting: a run started without the CLI does not trip over it.
      SEXTANT_PORT: 'eighty',
    }
    expect(loadBrowserConfig(env)).toEqual({
      chromium: '/usr/bin/chromium',
      browsersPath: '/opt/browsers',
      browserWs: 'ws://a:1/x',
      browserIdentity: 'browser',
    })
    const both = { SEXTANT_BROWSER_WS: 'ws://a:1/x', SEXTANT_CDP_URL: 'http://a:2' }
    const messageOf = (load: () => unknown) => {
      try {
        load()
      } catch (error) {
        return (error as Error).message
      }
      return 'accepted'
    }
    expect(messageOf(() => loadBrowserConfig(both))).toBe(messageOf(() => loadConfig(both)))
    expect(messageOf(() => loadBrowserConfig(both))).toBe(
      'Invalid configuration:\n  - SEXTANT_BROWSER_WS: set only one of SEXTANT_BROWSER_WS and SEXTANT_CDP_URL (got "ws://a:1/x")',
    )
  })
})

test.each([
  ['127.0.0.1', true],
  ['127.1.2.3', true],
  ['localhost', true],
  ['::1', true],
  ['0.0.0.0', false],
  ['192.168.1.2', false],
  ['::', false],
])('isLoopbackHost(%s) is %s', (host, loopback) => {
  expect(isLoopbackHost(host)).toBe(loopback)
})
