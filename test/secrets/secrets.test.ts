import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, test } from 'vitest'
import { buildSystemPrompt } from '../../src/agent/prompt/system-prompt.ts'
import { readSecrets } from '../../src/cli/run-flags.ts'
import { capEvent } from '../../src/events/event-cap.ts'
import { scrubbingLogger } from '../../src/log.ts'
import { hostMatchesDomains } from '../../src/secrets/domains.ts'
import { RunSecrets, SecretsError } from '../../src/secrets/secrets.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { collect, ofType } from '../support/run.ts'

const value = 'p@ss wörd!"/&'

describe('RunSecrets', () => {
  const secrets = RunSecrets.from({ pw: value, pin: { value: '4711-x', domains: ['*.bank.example'] } })

  test('scrubs a value in every form it is written in: raw, URL-encoded, form-encoded, JSON-escaped', () => {
    const written = [
      value,
      encodeURIComponent(value),
      new URLSearchParams({ v: value }).toString().slice(2),
      JSON.stringify(value).slice(1, -1),
      JSON.stringify(JSON.stringify(value)).slice(3, -3),
    ]
    for (const form of written)
      expect(secrets.scrub(`before ${form} after`)).toBe('before <secret>pw</secret> after')
  })

  test('scrubs a value quoted inside JSON inside JSON and leaves both readable (a Playwright trace logs `fill("…")` so)', () => {
    const text = JSON.stringify({
      message: JSON.stringify({ text: value }),
      log: `fill(${JSON.stringify(value)})`,
    })
    const outer = JSON.parse(secrets.scrub(text)) as { message: string; log: string }
    expect(JSON.parse(outer.message)).toEqual({ text: '<secret>pw</secret>' })
    expect(outer.log).toBe('fill("<secret>pw</secret>")')
  })

  test('scrubs every string of a deep value but the fixed words it is told to keep, and leaves the original alone', () => {
    const original = { a: [{ b: `x${value}` }], type: value, n: 2 }
    expect(secrets.scrubDeep(original)).toEqual({
      a: [{ b: 'x<secret>pw</secret>' }],
      type: '<secret>pw</secret>',
      n: 2,
    })
    expect(secrets.scrubDeep(original, new Set(['type']))).toEqual({
      a: [{ b: 'x<secret>pw</secret>' }],
      type: value,
      n: 2,
    })
    expect(original.a[0]?.b).toBe(`x${value}`)
  })

  test('a secret that is also a word of the event vocabulary does not break the run', async () => {
    const events = await collect({
      task: 'Say done.',
      model: scriptedModel([{ output: agentOutput({ done: { text: 'done', success: true } }) }]),
      browser: null,
      secrets: { word: 'done' },
    })
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { text: '<secret>word</secret>' },
    })
  })

  test('reveals placeholders, refuses unknown names and scoped secrets off their domains', () => {
    expect(secrets.reveal('<secret>pw</secret>!', 'https://any.test/')).toEqual({
      ok: true,
      text: `${value}!`,
      names: ['pw'],
    })
    expect(secrets.reveal('<secret>pin</secret>', 'https://login.bank.example/x')).toMatchObject({
      ok: true,
      text: '4711-x',
    })
    expect(secrets.reveal('<secret>pin</secret>', 'https://evil.test/')).toEqual({
      ok: false,
      reason: 'Refused: the secret "pin" may only be used on *.bank.example, and this page is evil.test.',
    })
    expect(secrets.reveal('<secret>nope</secret>', 'https://any.test/')).toEqual({
      ok: false,
      reason: 'There is no secret named "nope" in this run (its secrets: pw, pin).',
    })
    expect(secrets.reveal('no placeholder', 'about:blank')).toEqual({
      ok: true,
      text: 'no placeholder',
      names: [],
    })
  })

  test('rejects malformed secrets with a message that names the problem, never the value', () => {
    expect(() => RunSecrets.from({ 'bad name': 'x' })).toThrow(SecretsError)
    expect(() => RunSecrets.from({ pw: '' })).toThrow(/pw: a secret value must not be empty/)
    expect(() => RunSecrets.from({ pw: { value: 'hunter2', domains: [] } })).toThrow(SecretsError)
    try {
      RunSecrets.from({ pw: { value: 'hunter2', domains: [] } })
    } catch (error) {
      expect(String(error)).not.toContain('hunter2')
    }
  })
})

test('domains match as allowedDomains do: a host alone, its subdomains with *., a port only when given, never a non-web URL', () => {
  expect(hostMatchesDomains('https://example.com/', ['example.com'])).toBe(true)
  expect(hostMatchesDomains('https://a.example.com/', ['*.example.com'])).toBe(true)
  expect(hostMatchesDomains('https://badexample.com/', ['example.com'])).toBe(false)
  expect(hostMatchesDomains('https://a.example.com/', ['example.com'])).toBe(false)
  expect(hostMatchesDomains('http://127.0.0.1:8080/', ['127.0.0.1:8080'])).toBe(true)
  expect(hostMatchesDomains('http://127.0.0.1:9090/', ['127.0.0.1:8080'])).toBe(false)
  expect(hostMatchesDomains('http://127.0.0.1:9090/', ['127.0.0.1'])).toBe(true)
  expect(hostMatchesDomains('https://example.com/', ['example.com:443'])).toBe(true)
  expect(hostMatchesDomains('http://[::1]:5000/', ['[::1]:5000'])).toBe(true)
  expect(hostMatchesDomains('file:///etc/passwd', ['example.com'])).toBe(false)
  expect(hostMatchesDomains('about:srcdoc', ['example.com'])).toBe(false)
})

test('a scrubbing logger hides a value in fields, nested data and an error message and stack', () => {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk))
      callback()
    },
  })
  const secrets = RunSecrets.from({ pw: 'hunter2-log' })
  const log = scrubbingLogger(pino({ level: 'debug' }, destination), (text) => secrets.scrub(text))
  log.debug(
    { task: 'use hunter2-log', nested: { list: ['hunter2-log'] }, err: new Error('bad hunter2-log') },
    'x',
  )
  expect(lines.join('')).not.toContain('hunter2-log')
  expect(lines.join('')).toContain('<secret>pw</secret>')
  expect(JSON.parse(lines[0] ?? '{}').err.message).toBe('bad <secret>pw</secret>')
})

test('the system prompt tells the model about placeholders only when the run has secrets', () => {
  expect(buildSystemPrompt([])).not.toContain('<secret>')
  const prompt = buildSystemPrompt([], undefined, {
    secrets: [{ name: 'pw' }, { name: 'pin', domains: ['bank.example'] }],
  })
  expect(prompt).toContain('## Secrets')
  expect(prompt).toContain('- `<secret>pw</secret>`\n- `<secret>pin</secret>` (only on bank.example)')
})

describe('--secret name=ENV_VAR', () => {
  test('reads the value from the environment', () => {
    expect(readSecrets(['pw=MY_PW'], { MY_PW: 'from-env' })).toEqual({ pw: 'from-env' })
    expect(readSecrets([], {})).toBeUndefined()
  })

  test('says clearly when the variable is unset, and never takes a value from argv', () => {
    expect(() => readSecrets(['pw=MY_PW'], {})).toThrow(
      '--secret pw=MY_PW: the environment variable MY_PW is not set (or empty); export it first.',
    )
    expect(() => readSecrets(['pw=hunter 2!'], {})).toThrow(/--secret takes name=ENV_VAR .*got "pw=…"/)
  })
})

describe('event size cap', () => {
  test('cuts the longest texts of an event, says so, and keeps the event', () => {
    const draft = {
      type: 'observation' as const,
      url: 'u'.repeat(2_000_000),
      title: 't'.repeat(5_000_000),
      tabs: [],
      refs: 1,
      pageViewTokens: 2,
      notes: ['short'],
    }
    const { event: capped, cut } = capEvent(draft, 256 * 1024)
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(256 * 1024)
    expect(cut).toBeGreaterThan(6_000_000)
    expect(capped).toMatchObject({ type: 'observation', refs: 1, notes: ['short'] })
    expect((capped as typeof draft).title).toMatch(/… \[\d+ characters cut: event size cap\]$/)
  })

  test('a run with a 5 MB page title yields small events and an event_truncated warning the model reads', async () => {
    const base = fakeBrowser()
    const events = await collect({
      task: 't',
      model: scriptedModel([
        { output: agentOutput({ click: { ref: 'b1' } }) },
        { output: agentOutput({ done: { text: 'ok', success: true } }) },
      ]),
      browser: {
        ...base,
        observe: async (signal) => ({ ...(await base.observe(signal)), title: 'T'.repeat(5_000_000) }),
      },
      maxEventBytes: 64 * 1024,
    })
    for (const event of events)
      expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(64 * 1024)
    expect(ofType(events, 'observation')).toHaveLength(2)
    const warnings = ofType(events, 'warning').filter((warning) => warning.code === 'event_truncated')
    expect(warnings).toHaveLength(2)
    expect(warnings[0]?.message).toMatch(/^A observation event was over 64 KB/)
  })
})
