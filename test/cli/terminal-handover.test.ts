import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { hasScript, plain, startCliInTerminal } from './support.ts'

// A recorded hand_over, replayed in a terminal: the person there does what it asks and presses Enter;
// with --no-handover the replay ends with an error naming the step. Real CLI process, real Chromium.

const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-handover-'))
const recording = join(dir, 'sign-in.json')
writeFileSync(
  recording,
  JSON.stringify({
    version: 1,
    task: 'Sign in',
    steps: [
      { step: 1, tool: 'hand_over', input: { reason: 'Approve the sign-in on your phone' } },
      { step: 2, tool: 'done', input: { text: 'Signed in.', success: true } },
    ],
  }),
)
const env = { SEXTANT_DB: join(dir, 'cli.db'), SEXTANT_RUNS_DIR: join(dir, 'runs') }

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(!hasScript)('sextant replay of a hand_over', () => {
  test('waits for the person at the terminal, who presses Enter to hand back', async () => {
    const cli = startCliInTerminal(['replay', recording], env)
    await cli.waitFor('press Enter to hand back')
    // The reason is the model's (here, the recording's) words, quoted as such under Sextant's own line.
    expect(plain(cli.stdout())).toContain(
      '✋ The model asks for a person.\n  The model says: “Approve the sign-in on your phone”',
    )
    // The browser is headless: the prompt says where the person reaches it.
    expect(plain(cli.stdout())).toMatch(
      /Open http:\/\/127\.0\.0\.1:\d+\/runs\/run_\w+#token=[\w-]+ to use the browser \(check the address/,
    )
    cli.child.stdin.write('\r')
    expect(await cli.exited).toBe(0)
    expect(plain(cli.stdout())).toMatch(/handed back after \d+ s/)
  })

  test('--no-handover ends it with an error naming the step', async () => {
    const cli = startCliInTerminal(['replay', recording, '--no-handover'], env)
    expect(await cli.exited).toBe(1)
    expect(plain(cli.stdout())).toContain(
      'The replay stopped at step 1 (hand_over: Approve the sign-in on your phone): it needs a person',
    )
  })
})
