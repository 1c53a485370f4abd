// Sextant's own time per step, against a bare Playwright loop doing the same
// actions. The model is scripted and answers at once, so the gap between two
// model requests is Sextant's work: act, settle, build the view, screenshot,
// describe the target, assemble the prompt, emit events. Prints figures and
// where the time goes; never fails on them.
//
//   node bench/step.bench.ts [name-filter…]
import { existsSync } from 'node:fs'
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { runAgent } from '../src/agent/loop.ts'
import type { BrowserSession } from '../src/browser/browser-session.ts'
import { type BrowserPool, createBrowserPool, launchBrowser } from '../src/browser/launch/launcher.ts'
import type { AnyTool } from '../src/tool.ts'
import { startPageServer } from '../test/support/page-server.ts'
import { agentOutput, scriptedModel } from '../test/support/scripted-model.ts'
import { runMcp } from './step-mcp.ts'
import {
  form,
  lateList,
  popup,
  type Scenario,
  scenarioPages,
  scenarioRoutes,
  scrollPage,
  spa,
  todoMvc,
} from './step-scenarios.ts'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
// Beside the checkout (/work/main) or beside its worktrees folder (/work/wt/<name>).
const savedPages = [join(root, '..', 'shared'), join(root, '..', '..', 'shared')]
  .map((shared) => join(shared, 'pages', 'real-world'))
  .find((dir) => existsSync(dir))
const todoExamples = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples')
const filters = process.argv.slice(2)

/** Time spent in each part of a step, summed over the run, in ms. */
type Parts = Record<'act' | 'observe' | 'settle' | 'view' | 'screenshot' | 'target' | 'outcome', number>

const emptyParts = (): Parts => ({
  act: 0,
  observe: 0,
  settle: 0,
  view: 0,
  screenshot: 0,
  target: 0,
  outcome: 0,
})

/**
 * Delegates to a real session, adding up how long each of its parts takes.
 * The bench's sessions are Playwright sessions, which have every optional method (`missing` never runs).
 */
function missing(method: string): never {
  throw new Error(`The bench's session has no ${method}().`)
}

function timed(session: BrowserSession, parts: Parts): BrowserSession {
  const time = async <T>(part: keyof Parts, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      parts[part] += performance.now() - started
    }
  }
  const tools = session
    .tools()
    .map(
      (tool): AnyTool => ({ ...tool, execute: (input, ctx) => time('act', () => tool.execute(input, ctx)) }),
    )
  return {
    observe: async (signal) => {
      const observation = await time('observe', () => session.observe(signal))
      parts.settle += observation.timings?.settleMs ?? Number.NaN
      parts.view += observation.timings?.viewMs ?? Number.NaN
      return observation
    },
    tools: () => tools,
    screenshot: (options, signal) =>
      time('screenshot', () => session.screenshot?.(options, signal) ?? missing('screenshot')),
    elementBox: (ref, signal) =>
      time('screenshot', () => session.elementBox?.(ref, signal) ?? missing('elementBox')),
    describeTarget: (ref, signal) =>
      time('target', () => session.describeTarget?.(ref, signal) ?? missing('describeTarget')),
    findTarget: (target, signal) => session.findTarget?.(target, signal) ?? missing('findTarget'),
    checkExpectation: (expectation, target, signal) =>
      session.checkExpectation?.(expectation, target, signal) ?? missing('checkExpectation'),
    callOutcome: (probe, signal) =>
      time('outcome', () => session.callOutcome?.(probe, signal) ?? missing('callOutcome')),
    close: () => session.close(),
  }
}

interface Figures {
  steps: number[]
  parts: Parts
  missed: number
}

async function runSextant(
  pool: BrowserPool,
  origin: string,
  scenario: Scenario,
  screenshotsDir: string | undefined,
): Promise<Figures> {
  const parts = emptyParts()
  const session = await pool.newSession(
    { runId: 'bench', startUrl: `${origin}${scenario.path}`, allowedDomains: ['127.0.0.1'] },
    new AbortController().signal,
  )
  const asked: number[] = []
  let missed = 0
  const model = scriptedModel(
    scenario.steps.map((step, index) => (prompt: string) => {
      // The first observation is the run's start, not a step: only what follows is counted.
      if (asked.length === 0) Object.assign(parts, emptyParts())
      asked.push(performance.now())
      const view = prompt.slice(prompt.lastIndexOf('URL: '))
      const wanted = index > 0 ? scenario.expect?.(index - 1) : undefined
      if (wanted && !view.includes(wanted)) {
        missed++
        if (process.env.BENCH_DEBUG) console.log(`missed ${wanted} at step ${index}:\n${view.slice(-400)}`)
      }
      return { output: agentOutput(step(view, index)), chunkSize: 100_000 }
    }),
    {
      afterScript: (prompt: string) => {
        asked.push(performance.now())
        const wanted = scenario.expect?.(scenario.steps.length - 1)
        if (wanted && !prompt.slice(prompt.lastIndexOf('URL: ')).includes(wanted)) {
          missed++
          if (process.env.BENCH_DEBUG) console.log(`missed ${wanted} at the end:\n${prompt.slice(-600)}`)
        }
        return { output: agentOutput({ done: { text: 'ok', success: true } }), chunkSize: 100_000 }
      },
    },
  )
  try {
    for await (const event of runAgent({
      task: 'bench',
      model,
      browser: timed(session, parts),
      stuck: false,
      maxTurns: scenario.steps.length + 2,
      ...(screenshotsDir ? { screenshots: { dir: screenshotsDir } } : {}),
    })) {
      if (event.type === 'observation' && event.title === 'Not found')
        throw new Error(`${event.url} is not found`)
      if (event.type === 'tool_call_result' && !event.ok) throw new Error(`${event.result}`)
      if (event.type === 'done' && event.reason !== 'model_stop')
        throw new Error(`run ended: ${event.reason}`)
    }
  } finally {
    await session.close()
  }
  const steps = asked.slice(1).map((at, i) => at - (asked[i] ?? at))
  return { steps, parts, missed }
}

async function runBare(browser: Browser, origin: string, scenario: Scenario): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1'
      ? route.fallback()
      : route.abort('blockedbyclient'),
  )
  const page = await context.newPage()
  await page.goto(`${origin}${scenario.path}`, { waitUntil: 'load' })
  await page.ariaSnapshot({ mode: 'ai' })
  const steps: number[] = []
  let current: Page = page
  for (let i = 0; i < scenario.steps.length; i++) {
    const started = performance.now()
    const opened = await scenario.bare(current, i)
    if (opened) current = opened
    else if (current !== page && i % 2 === 1) {
      await current.close()
      current = page
    }
    await current.ariaSnapshot({ mode: 'ai' })
    steps.push(performance.now() - started)
  }
  await context.close()
  return steps
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  )
}

const ms = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(0)).padStart(5)

async function main(): Promise<void> {
  const siteRoot = await mkdtemp(join(tmpdir(), 'sextant-step-bench-'))
  await symlink(todoExamples, join(siteRoot, 'todomvc'))
  if (savedPages) await symlink(savedPages, join(siteRoot, 'real-world'))
  const server = await startPageServer({ root: siteRoot, pages: scenarioPages, routes: scenarioRoutes })
  const shots = await mkdtemp(join(tmpdir(), 'sextant-step-shots-'))
  const pool = createBrowserPool({})
  const bareBrowser = await launchBrowser()
  const scenarios = [
    todoMvc(),
    ...['bbc-1.html', 'ars-1.html', 'aktualne.html', 'cnet-svg-classes.html', 'breitbart.html'].map(
      scrollPage,
    ),
    form(),
    lateList(),
    spa(),
    popup(),
  ].filter((scenario) => filters.length === 0 || filters.some((filter) => scenario.name.includes(filter)))
  console.log(
    `${'scenario'.padEnd(46)} ${'sextant med/p90'.padStart(15)} ${'no-shots med/p90'.padStart(16)} ${'bare med/p90'.padStart(12)} ${'MCP med/p90'.padStart(12)} ${'×bare'.padStart(6)} missed  | per step: act settle  view  shot target outcome other`,
  )
  for (const scenario of scenarios) {
    try {
      const withShots = await runSextant(pool, server.url, scenario, shots)
      const without = await runSextant(pool, server.url, scenario, undefined)
      const bare = await runBare(bareBrowser, server.url, scenario)
      // Playwright MCP (a dev dependency): its own server process and browser, driven over stdio.
      const mcp = await runMcp(server.url, scenario).catch((error: unknown) => {
        console.log(
          `  (Playwright MCP: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
        )
        return { steps: [], missed: 0 }
      })
      const n = withShots.steps.length || 1
      const p = withShots.parts
      const accounted = p.act + p.observe + p.screenshot + p.target + p.outcome
      const total = withShots.steps.reduce((sum, step) => sum + step, 0)
      const median = percentile(withShots.steps, 50)
      console.log(
        `${scenario.name.padEnd(46)} ${`${ms(median)}/${ms(percentile(withShots.steps, 90))}`.padStart(15)} ${`${ms(percentile(without.steps, 50))}/${ms(percentile(without.steps, 90))}`.padStart(16)} ${`${ms(percentile(bare, 50))}/${ms(percentile(bare, 90))}`.padStart(12)} ${`${ms(percentile(mcp.steps, 50))}/${ms(percentile(mcp.steps, 90))}`.padStart(12)} ${(median / percentile(bare, 50)).toFixed(1).padStart(6)} ${`${withShots.missed + without.missed}/${mcp.missed}`.padStart(6)}  | ${[p.act, p.settle, p.view, p.screenshot, p.target, p.outcome, total - accounted].map((part) => ms(part / n)).join(' ')}`,
      )
    } catch (error) {
      console.log(
        `${scenario.name.padEnd(46)} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      )
    }
  }
  console.log(
    '\nms per step; "settle" and "view" are the observation\'s own (the action\'s settle is inside "act"); "other" is the prompt, events and the loop. "missed": steps whose next view lacked what the action set off (Sextant, both runs / MCP).',
  )
  await pool.close()
  await bareBrowser.close()
  await server.close()
  await rm(siteRoot, { recursive: true, force: true })
  await rm(shots, { recursive: true, force: true })
}

await main()
