import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { ConfirmationRequest } from '../../../src/agent/run/run-options.ts'
import { defineTool } from '../../../src/tool.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'

const runScript = agentOutput({ execute_javascript: { script: 'document.title' } })
const finish = agentOutput({ done: { text: 'ok', success: true } })

describe('confirmation', () => {
  test('approved: the call runs after confirmation_resolved', async () => {
    const browser = fakeBrowser()
    const requests: ConfirmationRequest[] = []
    const events = await collect({
      task: 't',
      model: scriptedModel([{ output: runScript }, { output: finish }]),
      browser,
      confirm: async (request) => {
        requests.push(request)
        return true
      },
    })
    expect(requests[0]).toMatchObject({ tool: 'execute_javascript', input: { script: 'document.title' } })
    const types = events.map((e) => e.type)
    expect(types.indexOf('confirmation_required')).toBeLessThan(types.indexOf('confirmation_resolved'))
    expect(ofType(events, 'confirmation_resolved')[0]).toMatchObject({ approved: true, by: 'user' })
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: true, result: 'Result: 42' })
    expect(browser.calls).toHaveLength(1)
  })

  test('denied: the model reads the denial and the run goes on', async () => {
    const browser = fakeBrowser()
    const model = scriptedModel([{ output: runScript }, { output: finish }])
    const events = await collect({ task: 't', model, browser, confirm: async () => false })
    expect(ofType(events, 'confirmation_resolved')[0]).toMatchObject({ approved: false, by: 'user' })
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: false })
    expect(model.prompts()[1]).toContain('the user denied this action')
    expect(browser.calls).toEqual([])
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('timeout counts as deny and releases the pending callback', async () => {
    let callbackSignal: AbortSignal | undefined
    const events = await collect({
      task: 't',
      model: scriptedModel([{ output: runScript }, { output: finish }]),
      browser: fakeBrowser(),
      confirmationTimeoutMs: 30,
      confirm: (_request, signal) => {
        callbackSignal = signal
        return new Promise(() => {})
      },
    })
    expect(ofType(events, 'confirmation_resolved')[0]).toMatchObject({ approved: false, by: 'timeout' })
    expect(callbackSignal?.aborted).toBe(true)
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('without a confirm callback, calls needing confirmation are denied by policy', async () => {
    const browser = fakeBrowser()
    const events = await collect({
      task: 't',
      model: scriptedModel([{ output: runScript }, { output: finish }]),
      browser,
    })
    expect(ofType(events, 'confirmation_required')).toEqual([])
    expect(ofType(events, 'confirmation_resolved')[0]).toMatchObject({ approved: false, by: 'policy' })
    expect(browser.calls).toEqual([])
  })

  test('policy rules can deny outright or demand confirmation for any tool', async () => {
    const browser = fakeBrowser()
    const confirmed: string[] = []
    const events = await collect({
      task: 't',
      model: scriptedModel([
        { output: agentOutput({ go_back: {} }) },
        { output: agentOutput({ click: { ref: 'b1' } }) },
        { output: finish },
      ]),
      browser,
      policy: [
        { tool: 'go_back', decision: 'deny', reason: 'Going back is not allowed here.' },
        { tool: 'click', decision: 'confirm' },
      ],
      confirm: async (request) => {
        confirmed.push(request.tool)
        return true
      },
    })
    expect(ofType(events, 'tool_call_result')[0]?.result).toBe('Not run: Going back is not allowed here.')
    expect(confirmed).toEqual(['click'])
    expect(browser.calls.map((c) => c.tool)).toEqual(['click'])
  })

  test('secrets in inputs are redacted in events and in the request', async () => {
    // A tool whose own schema keeps a secret-sounding key, so the value really reaches the loop
    // (zod would strip an unknown key before redaction had anything to do).
    const received: unknown[] = []
    const login = defineTool({
      name: 'login',
      description: 'Sign in.',
      input: z.object({ user: z.string(), password: z.string() }),
      requiresConfirmation: true,
      execute: async (input) => {
        received.push(input)
        return { ok: true, text: 'Signed in.' }
      },
    })
    const requests: ConfirmationRequest[] = []
    const events = await collect({
      task: 't',
      model: scriptedModel([
        { output: agentOutput({ login: { user: 'ada', password: 'hunter2' } }) },
        { output: finish },
      ]),
      browser: fakeBrowser(),
      tools: { add: [login] },
      confirm: async (request) => {
        requests.push(request)
        return true
      },
    })
    expect(received).toEqual([{ user: 'ada', password: 'hunter2' }])
    expect(ofType(events, 'tool_call_start')[0]).toMatchObject({
      input: { user: 'ada', password: '[redacted]' },
    })
    expect(requests[0]).toMatchObject({ input: { user: 'ada', password: '[redacted]' } })
    expect(JSON.stringify(events)).not.toContain('hunter2')
    expect(JSON.stringify(requests)).not.toContain('hunter2')
  })
})
