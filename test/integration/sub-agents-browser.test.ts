import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/agent/loop.ts'
import type { RunOptions } from '../../src/agent/run/run-options.ts'
import type { BrowserSessionFactory } from '../../src/browser/browser-session.ts'
import { startSession } from '../../src/browser/session/playwright-session.ts'
import { openSessionContext } from '../../src/browser/session/session-context.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import { AbortError } from '../../src/tool.ts'
import { agentOutput, type ScriptedResponse } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { doneOf, ofType, seqProblems } from '../support/run.ts'
import { childEvents, dispatch, finish, ownEvents, routedModel, sawChildren } from '../support/sub-agents.ts'
import { borrowBrowser } from '../support/suite/shared-browser.ts'
import { until } from '../support/until.ts'

// Sub-agents on real Chromium: three local "shops", each child in a browser context of its own
// from the same factory as its parent's, its events reaching the parent's stream as they happen.

const shops = { 'Shop A': 12, 'Shop B': 9, 'Shop C': 15 }
const shopPage = (name: string, price: number) => `<!doctype html><title>${name}</title>
<h1>${name}</h1><p>Kettle, 1.7 l</p><p class="price">Price: $${price}</p><button>Add to basket</button>`
const parentTask = 'Find the cheapest kettle on the three shops'

let server: PageServer
let browser: Browser

/** The launcher pool's way of opening a session, on a browser this test can count the contexts of. */
const newSession: BrowserSessionFactory = async (options, signal) => {
  const { context, guard } = await openSessionContext(browser, options, true)
  if (signal.aborted) {
    await context.close().catch(() => {})
    await guard.close()
    throw new AbortError()
  }
  return startSession(context, options, signal, { guard })
}

const urlOf = (shop: string) => `${server.url}/${shop.replace(' ', '-').toLowerCase()}`

beforeAll(async () => {
  server = await startPageServer({
    routes: {
      '/login': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=ada; Path=/' })
        response.end('<!doctype html><title>Login</title><h1>Signed in</h1>')
      },
      '/account': (request, response) => {
        const user = /session=(\w+)/.exec(request.headers.cookie ?? '')?.[1]
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end(
          `<!doctype html><title>Account</title><h1>${user ? `Signed in as ${user}` : 'Not signed in'}</h1>`,
        )
      },
    },
    pages: Object.fromEntries(
      Object.entries(shops).map(([name, price]) => [
        `/${name.replace(' ', '-').toLowerCase()}`,
        shopPage(name, price),
      ]),
    ),
  })
  browser = await borrowBrowser()
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/**
 * The parent dispatches one child per shop; each child reads the price off its page view;
 * the parent answers from what its children reported. `child` may replace a child's answer.
 */
function shopModel(child?: (shop: string) => ScriptedResponse | undefined) {
  return routedModel((task, prompt) => {
    if (task === parentTask) {
      if (!sawChildren(prompt)) {
        return dispatch(
          Object.keys(shops).map((shop) => ({
            task: `Read the kettle price on ${shop}`,
            startUrl: urlOf(shop),
          })),
        )
      }
      const found = [...prompt.matchAll(/(Shop [ABC]): \$(\d+)/g)].map(([, shop, price]) => ({
        shop,
        price: Number(price),
      }))
      const cheapest = found.sort((a, b) => a.price - b.price)[0]
      return finish(`Found ${found.length} prices; the cheapest is ${cheapest?.shop} at $${cheapest?.price}.`)
    }
    const shop = task.replace('Read the kettle price on ', '')
    const replaced = child?.(shop)
    if (replaced) return replaced
    const price = /Price: \$(\d+)/.exec(prompt)?.[1]
    const title = /- heading "(Shop [ABC])"/.exec(prompt)?.[1]
    return { ...finish(`${title}: $${price}`), delayMs: 5 }
  })
}

function options(model: RunOptions['model'], extra: Partial<RunOptions> = {}): RunOptions {
  return { task: parentTask, model, browser: newSession, stuck: false, subAgents: { max: 3 }, ...extra }
}

describe('sub-agents on local shops', () => {
  test('three children in parallel: their events interleave live, and the answer uses all three', async () => {
    const events: AgentEvent[] = []
    let mostContexts = 0
    for await (const event of runAgent(options(shopModel()))) {
      events.push(event)
      mostContexts = Math.max(mostContexts, browser.contexts().length)
    }
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'Found 3 prices; the cheapest is Shop B at $9.' },
    })
    expect(seqProblems(events)).toEqual([])
    const spans = [0, 1, 2].map((index) => {
      const positions = events.flatMap((event, position) => (event.childIndex === index ? [position] : []))
      return { first: positions[0] ?? -1, last: positions.at(-1) ?? -1 }
    })
    // Live, not buffered per child: every child had started before any of them ended.
    expect(Math.max(...spans.map((span) => span.first))).toBeLessThan(
      Math.min(...spans.map((span) => span.last)),
    )
    for (const [index, shop] of Object.keys(shops).entries()) {
      const child = childEvents(events, index)
      expect(ofType(child, 'observation')[0]).toMatchObject({ url: urlOf(shop), title: shop })
      expect(doneOf(child)).toMatchObject({
        reason: 'model_stop',
        result: { text: `${shop}: $${shops[shop as keyof typeof shops]}` },
      })
    }
    // Each child had a context of its own beside its parent's, and all were closed.
    expect(mostContexts).toBe(4)
    await until(() => browser.contexts().length === 0, { what: 'every context to close' })
  })

  test('one child fails while the others succeed: the parent answers from the two', async () => {
    const model = shopModel((shop) =>
      shop === 'Shop A' ? { error: { status: 400, message: 'Refused.' } } : undefined,
    )
    const events: AgentEvent[] = []
    for await (const event of runAgent(options(model))) events.push(event)
    expect(doneOf(childEvents(events, 0))).toMatchObject({ reason: 'error', result: { success: false } })
    expect(doneOf(childEvents(events, 1))).toMatchObject({ reason: 'model_stop' })
    expect(doneOf(childEvents(events, 2))).toMatchObject({ reason: 'model_stop' })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { text: 'Found 2 prices; the cheapest is Shop B at $9.' },
    })
    await until(() => browser.contexts().length === 0, { what: 'every context to close' })
  })

  test('aborting the parent mid-dispatch ends every child user_abort and leaves no context open', async () => {
    const controller = new AbortController()
    // Every child sees its page, then waits on a model that never answers.
    const model = shopModel(() => ({ hang: true, output: agentOutput({ wait: { seconds: 1 } }) }))
    const events: AgentEvent[] = []
    for await (const event of runAgent(options(model, { signal: controller.signal }))) {
      events.push(event)
      if (
        ofType(events, 'observation').filter((e) => e.parentRunId).length === 3 &&
        !controller.signal.aborted
      ) {
        expect(browser.contexts().length).toBe(4)
        controller.abort()
      }
    }
    for (const index of [0, 1, 2])
      expect(doneOf(childEvents(events, index))).toMatchObject({ reason: 'user_abort' })
    expect(doneOf(events)).toMatchObject({ reason: 'user_abort' })
    expect(ownEvents(events).at(-1)?.type).toBe('done')
    // The run closed what it opened before its last event: nothing is left to wait for.
    expect(browser.contexts()).toHaveLength(0)
  })
})

test('a child with shareSession starts signed in as its parent; a child without starts fresh', async () => {
  const tasks = { shared: 'Read the account page (shared).', fresh: 'Read the account page (fresh).' }
  const model = routedModel((task, prompt) => {
    if (task === 'Sign in, then check the account twice') {
      if (sawChildren(prompt)) return finish('checked')
      return dispatch([
        { task: tasks.shared, startUrl: `${server.url}/account`, shareSession: true },
        { task: tasks.fresh, startUrl: `${server.url}/account` },
      ])
    }
    return finish(/heading "(Signed in as \w+|Not signed in)"/.exec(prompt)?.[1] ?? 'no heading')
  })
  const events: AgentEvent[] = []
  for await (const event of runAgent(
    options(model, { task: 'Sign in, then check the account twice', startUrl: `${server.url}/login` }),
  ))
    events.push(event)
  expect(doneOf(childEvents(events, 0)).result.text).toBe('Signed in as ada')
  expect(doneOf(childEvents(events, 1)).result.text).toBe('Not signed in')
  expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
  await until(() => browser.contexts().length === 0, { what: 'every context to close' })
})

test('a child is priced, pictured and shown its screenshots as its parent is', async () => {
  const price = { input: 1, output: 10 }
  const prices = { takenAt: 'test', source: 'test', models: new Map([['custom/kettle-model', price]]) }
  const dir = mkdtempSync(join(tmpdir(), 'sextant-child-screenshots-'))
  const childPrompts: string[] = []
  const model = routedModel((task, prompt) => {
    if (task === parentTask) {
      return sawChildren(prompt)
        ? finish('Shop B read.')
        : dispatch([{ task: 'Read the kettle price on Shop B', startUrl: urlOf('Shop B') }])
    }
    childPrompts.push(prompt)
    return finish('Shop B: $9')
  })
  const events: AgentEvent[] = []
  try {
    for await (const event of runAgent(
      options(model, {
        modelName: 'custom/kettle-model',
        prices,
        screenshots: { dir },
        vision: true,
        subAgents: { max: 1 },
      }),
    ))
      events.push(event)
    const child = childEvents(events, 0)
    const childDone = doneOf(child)
    const parentDone = doneOf(events)
    expect(childDone).toMatchObject({ reason: 'model_stop' })
    // The parent's cost is its own calls' and its child's, all priced from the custom table.
    const costOf = (usage: { inputTokens: number; outputTokens: number }) =>
      (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
    expect(childDone.costUsd).toBeCloseTo(costOf(childDone.usage), 12)
    expect(parentDone.usage.inputTokens).toBeGreaterThan(childDone.usage.inputTokens)
    expect(parentDone.costUsd).toBeCloseTo(costOf(parentDone.usage), 12)
    // The child's step screenshot is kept beside its parent's, and the model saw it.
    const childRunId = childDone.runId
    expect(ofType(child, 'observation')[0]?.screenshot).toBe(`/v1/runs/${childRunId}/steps/1/screenshot`)
    expect(existsSync(join(dir, childRunId, 'steps', '1.jpg'))).toBe(true)
    expect(childPrompts[0]).toContain('## The screenshot')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  await until(() => browser.contexts().length === 0, { what: 'every context to close' })
})
