import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { doneTurn, promptText } from '../support/models/fake-openai.ts'
import { startPageServer } from '../support/page-server.ts'
import { useBrowserServer } from './browser-server.ts'
import { useScriptedCli } from './scripted-cli.ts'
import { startCli } from './support.ts'

// `sextant run`'s request flags: `--instructions FILE|TEXT`: the run's own rules reach the system prompt, read from the
// file the value names, else taken as the text itself.

const cli = useScriptedCli('sextant-cli-instructions-')
const browser = useBrowserServer()

function systemPromptOf(task: string): string {
  const request = cli.fake.requests.find((candidate) => promptText(candidate).includes(task))
  return JSON.stringify(request?.body.messages.filter((message) => message.role !== 'user') ?? [])
}

test('--instructions reads the file it names, or takes the text itself', async () => {
  const file = join(cli.dir, 'rules.md')
  writeFileSync(file, 'Answer in haiku.\n')
  const fromFile = cli.script('Describe the page (instructions from a file).', doneTurn('Done.'))
  const run = startCli(['run', fromFile, '--instructions', file], { ...cli.env(), ...browser.env() })
  expect(await run.exited).toBe(0)
  expect(systemPromptOf(fromFile)).toContain('Answer in haiku.')

  const fromText = cli.script('Describe the page (instructions as text).', doneTurn('Done.'))
  const textRun = startCli(['run', fromText, '--instructions', 'Be terse.'], {
    ...cli.env(),
    ...browser.env(),
  })
  expect(await textRun.exited).toBe(0)
  expect(systemPromptOf(fromText)).toContain('Be terse.')
})

test('--instructions longer than the request allows is a usage error naming the field', async () => {
  const run = startCli(['run', 'Anything.', '--instructions', 'x'.repeat(8001)], cli.env())
  expect(await run.exited).toBe(2)
  expect(run.stderr()).toMatch(/instructions: .*8000/)
})

test("the browser context flags are the request's `browser`, checked by its rules, a header's value never echoed", async () => {
  const badSize = startCli(['run', 'Anything.', '--viewport', '390'], cli.env())
  expect(await badSize.exited).toBe(2)
  expect(badSize.stderr()).toContain('--viewport takes WIDTHxHEIGHT')
  const host = startCli(['run', 'Anything.', '--header', 'Host: hidden-value-42'], cli.env())
  expect(await host.exited).toBe(2)
  expect(host.stderr()).toMatch(/browser\.extraHTTPHeaders.*not a header a run may set/)
  expect(host.stderr()).not.toContain('hidden-value-42')
  const device = startCli(['run', 'Anything.', '--device', 'Nokia 3310'], cli.env())
  expect(await device.exited).toBe(2)
  expect(device.stderr()).toContain("Playwright's device names")
})

test('a replay runs in the browser context it was recorded in, unless its flags say otherwise', async () => {
  const site = await startPageServer({
    pages: {
      '/': `<!doctype html><title>…</title><script>document.addEventListener('DOMContentLoaded', () => { document.getElementById('where').textContent = 'Here: ' + navigator.language + ' ' + Intl.DateTimeFormat().resolvedOptions().timeZone })</script><p id="where">Nowhere</p>`,
    },
  })
  try {
    const recording = join(cli.dir, 'berlin.json')
    writeFileSync(
      recording,
      JSON.stringify({
        version: 1,
        task: 'Say where the page thinks it is.',
        startUrl: `${site.url}/`,
        browser: { locale: 'de-DE', timezoneId: 'Europe/Berlin' },
        steps: [
          { step: 1, tool: 'read_page', input: {} },
          { step: 2, tool: 'done', input: { text: 'Read it.', success: true } },
        ],
      }),
    )
    const placeOf = async (args: string[]): Promise<string | undefined> => {
      const run = startCli(['replay', recording, '--json', ...args], browser.env())
      expect(await run.exited, run.stderr()).toBe(0)
      const events = run
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; result?: unknown })
      const read = events.find((event) => event.type === 'tool_call_result')?.result
      return /Here: ([^\n]*)/.exec(typeof read === 'string' ? read : '')?.[1]
    }
    expect(await placeOf([])).toBe('de-DE Europe/Berlin')
    expect(await placeOf(['--locale', 'fr-FR', '--timezone', 'Asia/Tokyo'])).toBe('fr-FR Asia/Tokyo')
  } finally {
    await site.close()
  }
})
