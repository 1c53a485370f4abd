import { describe, expect, test } from 'vitest'
import { startCli } from './support.ts'

// The CLI never prints a credential it was given: a usage error or a refused setting names the flag
// or variable and shows the URL without its user and password.

const password = 'S3cret@Pass-7731'
const env = { SEXTANT_MODEL: 'openai/gpt-4.1-mini', OPENAI_API_KEY: 'sk-test' }

async function refused(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const cli = startCli(args, { ...env, ...extra })
  expect(await cli.exited).not.toBe(0)
  return `${cli.stdout()}${cli.stderr()}`
}

describe('credentials in what the CLI echoes', () => {
  test.each([
    ['--proxy', `http://user:${encodeURIComponent(password)}@[not-a-host`],
    ['--proxy', `user:${password}@[not-a-host`],
    ['--url', `http://user:${password}@[not-a-host/`],
    ['--url', `user:${password}@example.com/`],
  ])('%s %s: the usage error names the flag, never the password', async (flag, value) => {
    const output = await refused(['run', flag, value, 'A task.'])
    expect(output).toContain(flag)
    expect(output).not.toContain('S3cret')
    expect(output).not.toContain(encodeURIComponent(password))
  })

  test('a refused URL setting is shown without its credentials', async () => {
    const output = await refused(['run', 'A task.'], { SEXTANT_BASE_URL: `http://user:${password}@[x` })
    expect(output).toContain('SEXTANT_BASE_URL')
    expect(output).not.toContain('S3cret')
  })
})
