import { describe, expect, test } from 'vitest'
import { actionTurn, doneTurn, promptText } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { useBrowserServer } from './browser-server.ts'
import { useScriptedCli } from './scripted-cli.ts'
import { hasScript, plain, startCliInTerminal } from './support.ts'

// `sextant run` at a terminal (a pseudo-terminal from script(1)): the live view, confirmations and
// questions at the prompt or in the run's viewer, Ctrl-C. Real processes and Chromium; the model is a fake.

const scripted = useScriptedCli('sextant-cli-terminal-')
const { script } = scripted
// Runs not about the browser's launch connect to the file's one Chromium; Ctrl-C's run launches its own.
const browser = useBrowserServer()
const env = (): NodeJS.ProcessEnv => ({ ...scripted.env(), ...browser.env() })

describe.skipIf(!hasScript)('sextant run in a terminal', () => {
  test('shows the steps live, asks for a confirmation and takes the answer', async () => {
    const task = script(
      'Run JavaScript with approval.',
      actionTurn('execute_javascript', { script: 'return 6 * 7' }, { text: 'I will compute it.' }),
      doneTurn('It is 42.'),
    )
    const cli = startCliInTerminal(['run', task], env())
    await cli.waitFor('Allow it? [y/N]')
    cli.child.stdin.write('y\r')
    expect(await cli.exited).toBe(0)
    const output = plain(cli.stdout())
    expect(output).toContain('Step 1 of 40')
    expect(output).toContain('I will compute it.')
    expect(output).toContain('execute_javascript')
    expect(output).toMatch(/approved \(by user\)/)
    expect(output).toMatch(/✓ .*42/)
    expect(output).toMatch(/✔ Done · 2 steps/)
  })

  test("a confirmation asked at the terminal can be answered in the run's viewer instead: the first reply counts", async () => {
    const task = script(
      'Hand over, then run JavaScript approved in the viewer.',
      actionTurn('hand_over', { reason: 'Look at the page' }),
      actionTurn('execute_javascript', { script: 'return 6 * 7' }),
      doneTurn('It is 42.'),
    )
    const cli = startCliInTerminal(['run', task], env())
    // The hand_over prints where the viewer is; the person hands back at the terminal.
    await cli.waitFor('press Enter to hand back')
    const viewer = /(http:\/\/127\.0\.0\.1:\d+)\/runs\/(run_\w+)#token=([\w-]+)/.exec(plain(cli.stdout()))
    if (!viewer) throw new Error(`No viewer URL in:\n${plain(cli.stdout())}`)
    const [, origin, runId, token] = viewer
    cli.child.stdin.write('\r')
    await cli.waitFor('Allow it? [y/N]')
    const answer = (approve: boolean) =>
      fetch(`${origin}/v1/runs/${runId}/confirmations/call_2`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approve }),
      })
    const approved = await answer(true)
    expect(approved.status, await approved.clone().text()).toBe(200)
    expect(await approved.json()).toEqual({ runId, callId: 'call_2', approved: true })
    expect(await cli.exited).toBe(0)
    const output = plain(cli.stdout())
    expect(output).toContain('(answered in the viewer)')
    expect(output).toMatch(/approved \(by user\)/)
    expect(output).toMatch(/✓ .*42/)
  })

  test('ask_user prompts on the terminal', async () => {
    const task = script(
      'Ask which colour.',
      actionTurn('ask_user', { question: 'Which colour do you like?' }),
      doneTurn('Blue it is.'),
    )
    const cli = startCliInTerminal(['run', task], env())
    await cli.waitFor('Which colour do you like?')
    cli.child.stdin.write('blue\r')
    expect(await cli.exited).toBe(0)
    expect(plain(cli.stdout())).toContain('The user answered: blue')
  })

  test("a refusal ends the run naming its outcome, with the model's words, and exits 1", async () => {
    const task = script('Refuse politely.', { refusal: "I'm sorry, but I can't help with that." })
    const cli = startCliInTerminal(['run', task], env())
    expect(await cli.exited).toBe(1)
    const output = plain(cli.stdout())
    expect(output).toMatch(/✘ Stopped \(error: refusal\)/)
    expect(output).toContain(`The model refused the task: "I'm sorry, but I can't help with that."`)
  })

  test('Ctrl-C aborts the run cleanly and exits 130', async () => {
    const task = script('Think until interrupted.', { hang: true })
    const cli = startCliInTerminal(['run', task], scripted.env())
    await cli.waitFor('Step 1 of 40')
    await until(() => scripted.fake.requests.some((request) => promptText(request).includes(task)))
    cli.child.stdin.write('\x03')
    expect(await cli.exited).toBe(130)
    const output = plain(cli.stdout())
    expect(output).toContain('Aborting')
    expect(output).toContain('■ Aborted')
  })
})
