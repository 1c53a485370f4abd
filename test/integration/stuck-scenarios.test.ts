import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/agent/loop.ts'
import type { RunOptions } from '../../src/agent/run/run-options.ts'
import { createStuckDetector } from '../../src/agent/stuck/stuck-monitor.ts'
import { type BrowserPool, createBrowserPool } from '../../src/browser/launch/launcher.ts'
import type { AgentEvent, AgentEventOf } from '../../src/events/events.ts'
import { type FixtureSite, startFixtureSite } from '../agent/stuck/fixture-site.ts'
import { pageDrivenModel } from '../agent/stuck/page-driven-model.ts'
import { supervisorModel } from '../agent/stuck/simulate.ts'
import { sharedLaunch } from '../support/suite/shared-browser.ts'

// Real Chromium against a local site; only the language models are scripted.
let site: FixtureSite
let pool: BrowserPool

beforeAll(async () => {
  site = await startFixtureSite()
  pool = createBrowserPool({}, sharedLaunch)
})
afterAll(async () => {
  await pool?.close()
  await site?.close()
})

async function run(options: Omit<RunOptions, 'browser'>) {
  const events: AgentEvent[] = []
  for await (const event of runAgent({ browser: pool.newSession, ...options })) events.push(event)
  const done = events.at(-1) as AgentEventOf<'done'>
  return { events, done }
}

/** `stuck_detected:stall@4`, `recovery:escape`: the stuck events in order. */
function stuckTrail(events: AgentEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === 'stuck_detected') return [`stuck_detected:${event.kind}@${event.step}`]
    if (event.type === 'recovery') return [`recovery:${event.strategy}`]
    return []
  })
}

describe('stuck scenarios in a real browser', { timeout: 120_000 }, () => {
  test('a button behind a modal: the agent keeps clicking it, Escape frees it', async () => {
    const model = pageDrivenModel((page) =>
      page.has('Subscribed!')
        ? { done: { text: 'Subscribed to the newsletter.', success: true } }
        : { click: { ref: page.ref('button', 'Subscribe') } },
    )
    const { events, done } = await run({
      task: 'Subscribe to the newsletter.',
      startUrl: site.url('/newsletter'),
      model,
      maxTurns: 20,
      stuck: () => createStuckDetector({ supervisorModel: supervisorModel() }),
    })
    expect(stuckTrail(events)).toEqual([
      'stuck_detected:stall@4',
      'stuck_detected:repeated_action@4',
      'stuck_detected:stall@5',
      'recovery:scroll_top',
      'stuck_detected:stall@6',
      'recovery:escape',
    ])
    // Each recovery ran as a real browser action (scrolling up fails: the page is at the top already).
    const recoveries = events.filter((event) => event.type === 'recovery')
    expect(recoveries.map((event) => event.detail)).toEqual([
      expect.stringMatching(/^Tried to scroll to the top of the page: failed: ".*already at the top/),
      expect.stringMatching(/^Tried to press Escape to close any dialog, menu or overlay: ok: /),
    ])
    // The clicks were refused because of the dialog, and the model was told so.
    const results = events.filter((event) => event.type === 'tool_call_result')
    expect(results[0]).toMatchObject({ ok: false, result: expect.stringContaining('covered') })
    expect(model.prompts[3]).toContain('You appear to be stuck')
    expect(done).toMatchObject({ reason: 'model_stop', result: { success: true } })
  })

  test('a disabled submit button: recoveries, then the supervisor stops the run', async () => {
    const model = pageDrivenModel((page) => ({ click: { ref: page.ref('button', 'Create account') } }))
    const supervisor = supervisorModel({
      decision: 'abort',
      reason: 'The Create account button is disabled: registration is closed for maintenance.',
      approach: '',
    })
    const { events, done } = await run({
      task: 'Create an account for ada@example.org.',
      startUrl: site.url('/register'),
      model,
      // Every click fails (disabled); a budget of 10 failed actions keeps the error budget out of the way.
      maxTurns: 30,
      stuck: () => createStuckDetector({ supervisorModel: supervisor }),
    })
    expect(stuckTrail(events)).toEqual([
      'stuck_detected:stall@4',
      'stuck_detected:repeated_action@4',
      'stuck_detected:stall@5',
      'recovery:scroll_top',
      'stuck_detected:stall@6',
      'recovery:escape',
      'stuck_detected:stall@7',
      'recovery:reload',
      // No earlier page to return to: navigate_last_progress is passed over.
      'stuck_detected:stall@8',
      'recovery:supervisor',
    ])
    expect(supervisor.doGenerateCalls).toHaveLength(1)
    const recoveries = events.filter((event) => event.type === 'recovery').map((event) => event.detail)
    expect(recoveries.slice(1, 3)).toEqual([
      expect.stringMatching(/^Tried to press Escape.*: ok: /),
      expect.stringMatching(/^Tried to reload the page: ok: /),
    ])
    expect(done.reason).toBe('loop_detected')
    expect(done.result.success).toBe(false)
    expect(done.result.text).toContain('registration is closed for maintenance')
    expect(done.result.text).toContain('tried to reload the page at step 7 (ok: ')
  })

  test('two pages in ping-pong: oscillation, recoveries, guidance ignored, then the ceiling', async () => {
    const model = pageDrivenModel((page) =>
      page.has('About us') && page.has('family business')
        ? { click: { ref: page.ref('link', 'Home') } }
        : { click: { ref: page.ref('link', 'About us') } },
    )
    const supervisor = supervisorModel({
      decision: 'new_approach',
      reason: 'The opening hours are on neither page.',
      approach: 'Stop switching pages; report that the opening hours are not published.',
    })
    const { events, done } = await run({
      task: 'Find the shop opening hours.',
      startUrl: site.url('/opening'),
      model,
      maxTurns: 30,
      stuck: () => createStuckDetector({ supervisorModel: supervisor }),
    })
    const trail = stuckTrail(events)
    expect(trail.slice(0, 2)).toEqual(['stuck_detected:oscillation@4', 'stuck_detected:url_cycle@4'])
    expect(trail.filter((entry) => entry.startsWith('recovery:'))).toEqual([
      'recovery:scroll_top',
      'recovery:escape',
      'recovery:reload',
      'recovery:supervisor',
    ])
    expect(model.prompts.at(-1)).toContain('<guidance>\n- Stop switching pages')
    expect(done.reason).toBe('loop_detected')
    expect(done.result.text).toContain("Neither the recoveries nor the supervisor's new approach freed it.")
  })

  test('paging through search results legitimately is never flagged', async () => {
    const model = pageDrivenModel((page) =>
      page.has('Page 5 of 5')
        ? { done: { text: 'The cheapest lamp costs 20 €.', success: true } }
        : { click: { ref: page.ref('link', 'Next') } },
    )
    const { events, done } = await run({
      task: 'Find the cheapest lamp across all result pages.',
      startUrl: site.url('/search?q=lamp'),
      model,
      maxTurns: 10,
      stuck: () => createStuckDetector({ supervisorModel: supervisorModel() }),
    })
    expect(stuckTrail(events)).toEqual([])
    expect(done).toMatchObject({ reason: 'model_stop', result: { success: true } })
    expect(events.filter((event) => event.type === 'step_started')).toHaveLength(5)
  })
})
