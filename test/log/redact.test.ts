import { Writable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { createLogger } from '../../src/log.ts'
import { redactedText, redactInput } from '../../src/redact.ts'

function capture(): { lines: Record<string, unknown>[]; destination: Writable } {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line))
      callback()
    },
  })
  return { lines, destination }
}

const secretFields = {
  apiKey: 'sk-1',
  headers: { authorization: 'Bearer abc', 'x-api-key': 'k' },
  form: [{ password: 'hunter2', user: 'ada' }],
  accessToken: 't',
  clientSecret: 's',
}

describe('one rule for what is secret', () => {
  test('events and log lines hide the same fields, at any depth, and keep token counts', async () => {
    const { lines, destination } = capture()
    const log = createLogger({ level: 'info', destination }).child({ runId: 'run_1' })
    log.info({ ...secretFields, usage: { inputTokens: 3, totalTokens: 5 } }, 'line')
    log.flush()
    await new Promise((resolve) => setImmediate(resolve))

    const event = redactInput(secretFields)
    const line = lines[0]
    expect(line).toMatchObject({
      runId: 'run_1',
      usage: { inputTokens: 3, totalTokens: 5 },
      msg: 'line',
    })
    for (const view of [event, line]) {
      expect(view).toMatchObject({
        apiKey: redactedText,
        headers: { authorization: redactedText, 'x-api-key': redactedText },
        form: [{ password: redactedText, user: 'ada' }],
        accessToken: redactedText,
        clientSecret: redactedText,
      })
    }
    expect(JSON.stringify(lines)).not.toMatch(/sk-1|hunter2|Bearer abc/)
  })

  test('an error keeps its message and stack in a log line', async () => {
    const { lines, destination } = capture()
    const log = createLogger({ level: 'info', destination })
    log.error({ err: new Error('disk full') }, 'failed')
    log.flush()
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines[0]?.err).toMatchObject({ message: 'disk full', type: 'Error' })
  })

  test('the input itself is not changed', () => {
    const input = { password: 'p' }
    redactInput(input)
    expect(input.password).toBe('p')
  })
})
