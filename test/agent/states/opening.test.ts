import { describe, expect, test } from 'vitest'
import { runAgent } from '../../../src/agent/loop.ts'
import { applyUpdate } from '../../../src/agent/run/apply-update.ts'
import { opening } from '../../../src/agent/states/opening.ts'
import type { AgentEvent } from '../../../src/events/events.ts'
import { sleep } from '../../../src/tool.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { doneOf, handBuiltContext, ofType } from '../../support/run.ts'

describe('opening: the run reaches its browser in its first state', () => {
  test('a browser that cannot start ends the run with error, saying why', async () => {
    const ctx = handBuiltContext(scriptedModel([]), {
      browserSetup: {
        open: () => Promise.reject(new Error('no display')),
        equip: () => ({
          tools: new Map(),
          systemPrompt: '',
          startStream: () => ({ next: never, cancel() {} }),
        }),
        release: () => {},
        close: async () => {},
      },
    })
    const { next, effects, update } = await opening(ctx)
    expect(next).toMatchObject({ type: 'done', reason: 'error' })
    expect(effects).toEqual([
      { type: 'error', message: 'The browser could not be started: no display', retryable: false },
    ])
    expect(update).toBeUndefined()
  })

  test('the opened browser equips the context once the loop applies the update: its tools, its prompt', async () => {
    const browser = fakeBrowser()
    const base = handBuiltContext(scriptedModel([]))
    const ctx = handBuiltContext(scriptedModel([]), {
      browserSetup: {
        open: async () => ({ browser, owned: true }),
        equip: (opened) => ({
          ...(opened ? { browser: opened } : {}),
          tools: base.tools,
          systemPrompt: 'with a browser',
          startStream: base.startStream,
        }),
        release: () => {},
        close: async () => {},
      },
    })
    const result = await opening(ctx)
    expect(result.next).toEqual({ type: 'thinking' })
    expect(ctx.browser).toBeUndefined()
    applyUpdate(ctx, result.update)
    expect(ctx.browser).toBe(browser)
    expect(ctx.systemPrompt).toBe('with a browser')
    expect(ctx.run.browser).toEqual({ browser, owned: true })
  })

  test('a browser that arrives after the abort is closed, and the run ends with user_abort at once', async () => {
    const browser = fakeBrowser()
    const controller = new AbortController()
    const events: AgentEvent[] = []
    for await (const event of runAgent({
      task: 't',
      model: scriptedModel([]),
      stuck: false,
      signal: controller.signal,
      // A factory that does not watch the signal: its browser comes after the run was aborted.
      browser: async () => {
        await sleep(100, new AbortController().signal)
        return browser
      },
    })) {
      events.push(event)
      if (event.type === 'run_started') controller.abort()
    }
    expect(doneOf(events)).toMatchObject({
      reason: 'user_abort',
      result: { success: false, text: 'Aborted before the browser started.' },
    })
    expect(ofType(events, 'warning')).toEqual([])
    expect(browser.closed).toBe(1)
  })

  test('onBrowser is told of the browser when it opens, and let go before it closes', async () => {
    const browser = fakeBrowser()
    const seen: string[] = []
    for await (const _ of runAgent({
      task: 't',
      model: scriptedModel([{ output: agentOutput({ done: { success: true, text: 'ok' } }) }]),
      stuck: false,
      browser: async () => browser,
      onBrowser: (session) => seen.push(session === browser ? `open, closed ${browser.closed}` : 'released'),
    }));
    expect(seen).toEqual(['open, closed 0', 'released'])
    expect(browser.closed).toBe(1)
  })
})

const never = () => new Promise<never>(() => {})
