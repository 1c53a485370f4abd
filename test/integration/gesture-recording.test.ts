import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { playwrightSpec } from '../../src/agent/tools/actions.ts'
import type { BrowserPool } from '../../src/browser/launch/launcher.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import { runAgent } from '../../src/index.ts'
import { recordingOf } from '../../src/recording/from-events.ts'
import type { Recording } from '../../src/recording/schema.ts'
import { fixturesDir, testPool } from '../browser/helpers/harness.ts'
import { agentOutput, refOf, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, serveFolder } from '../support/page-server.ts'
import { doneOf, ofType } from '../support/run.ts'
import { playwrightTest, specFolder, tscOutput } from '../support/spec-check.ts'

// Each gesture is made by a scripted model, recorded, replayed without it, and exported as a spec that passes.
// The runs take contexts of one browser (a launch is what a run alone costs most); a run's own launch is
// run-agent-browser.test.ts's to check. The exported specs are checked together at the end: one tsc
// program and one `playwright test` run for all (each costs a process, the run a browser).

let server: PageServer
let pool: BrowserPool
/** Each test's exported spec, to compile and run after the file's other tests (see the last test). */
const exported: { name: string; spec: string }[] = []

beforeAll(async () => {
  server = await serveFolder(fixturesDir)
  pool = testPool()
})

afterAll(async () => {
  await pool.close()
  await server.close()
})

/** The ref of a nameless line of the view showing this text (`listitem [draggable] [ref=x]: Red`). */
function refOfText(prompt: string, role: string, text: string): string {
  const match = new RegExp(`- ${role}[^"\\n]*\\[ref=([^\\]]+)\\]: ${text}\\n`).exec(prompt)
  if (!match?.[1]) throw new Error(`No ${role} with text ${text} in:\n${prompt.slice(-2000)}`)
  return match[1]
}

type Step = (prompt: string) => Record<string, unknown>

async function record(
  page: string,
  steps: Step[],
  vision = false,
): Promise<{ events: AgentEvent[]; recording: Recording }> {
  const model = scriptedModel([
    ...steps.map((step) => (prompt: string) => ({ output: agentOutput(step(prompt), '', 'a gesture') })),
    { output: agentOutput({ done: { text: 'Done.', success: true } }) },
  ])
  const events: AgentEvent[] = []
  for await (const event of runAgent({
    task: `Gestures on ${page}`,
    startUrl: `${server.url}/${page}`,
    model,
    vision,
    browser: pool.newSession,
    confirm: async () => true,
  }))
    events.push(event)
  for (const result of ofType(events, 'tool_call_result')) expect(result.ok, result.result).toBe(true)
  return { events, recording: recordingOf(events) }
}

async function replay(recording: Recording, page: string, vision = false): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const event of runAgent({
    replay: recording,
    startUrl: `${server.url}/${page}`,
    vision,
    browser: pool.newSession,
    confirm: async () => true,
  }))
    events.push(event)
  return events
}

/** Evaluates `script` in the page after the last step: a check the spec makes too. */
function checkStep(script: string): Step {
  return () => ({ execute_javascript: { script } })
}

const gestureSteps: Step[] = [
  (prompt) => ({ click: { ref: refOf(prompt, 'cell', '3.50'), count: 2 } }),
  (prompt) => ({ type: { ref: refOf(prompt, 'textbox', 'Edit price'), text: '4.20', submit: true } }),
  (prompt) => ({ click: { ref: refOfText(prompt, 'paragraph', 'report.pdf'), button: 'right' } }),
  (prompt) => ({ click: { ref: refOf(prompt, 'menuitem', 'Rename') } }),
  () => ({ select_text: { text: 'brown fox jumps' } }),
  (prompt) => ({ click: { ref: refOf(prompt, 'button', 'Highlight') } }),
]

const sortingSteps: Step[] = [
  (prompt) => ({ drag: { ref: refOfText(prompt, 'listitem', 'Red'), by: { x: 0, y: 100 } } }),
  (prompt) => ({
    drag: { ref: refOfText(prompt, 'listitem', 'Apples'), to: refOfText(prompt, 'listitem', 'Cherries') },
  }),
]

const sliderSteps: Step[] = [
  (prompt) => ({ set_value: { ref: refOf(prompt, 'slider', 'Volume'), value: 135 } }),
  (prompt) => ({ set_value: { ref: refOf(prompt, 'textbox', 'Colour'), value: '#ff8800' } }),
  (prompt) => ({ set_value: { ref: refOf(prompt, 'slider', 'Brightness'), value: 7 } }),
]

/** The canvas's target, from the box an earlier step's script reported (the history shows its result). */
const canvasSteps: Step[] = [
  checkStep("const box = document.getElementById('board').getBoundingClientRect(); return [box.x, box.y]"),
  (prompt) => {
    const [left, top] = JSON.parse(/Result: (\[[\d.,]+\])/.exec(prompt)?.[1] ?? '[0,0]') as number[]
    return { click_at: { x: (left ?? 0) + 320, y: (top ?? 0) + 140 } }
  },
]

describe('gestures are recorded, replayed and exported', () => {
  test.each([
    ['gestures/gestures.html', gestureSteps, '#status', 'Rename report.pdf', 'mark', 'brown fox jumps'],
    [
      'gestures/sortable.html',
      sortingSteps,
      '#pointer-order',
      'Pointer order: Green, Blue, Red, Yellow',
      '#native-order',
      'Native order: Bananas, Cherries, Apples, Dates',
    ],
    [
      'gestures/sliders.html',
      sliderSteps,
      '#volume-shown',
      'Volume input: 135',
      '#colour-shown',
      'Colour #ff8800',
    ],
    ['gestures/gestures.html (canvas, with vision)', canvasSteps, '#status', 'Target hit', '', ''],
  ] as const)(
    '%s',
    async (name, steps, selector, wanted, selector2, wanted2) => {
      const page = name.split(' ')[0] ?? name
      const vision = steps === canvasSteps
      const check = `return [document.querySelector('${selector}')?.textContent, ${selector2 ? `document.querySelector('${selector2}')?.textContent` : "''"}]`
      const { recording } = await record(page, [...steps, checkStep(check)], vision)
      const recorded = recording.steps.filter(
        (step) => step.tool !== 'execute_javascript' && step.tool !== 'done',
      )
      expect(recorded.every((step) => step.skip === undefined)).toBe(true)
      const results = (events: AgentEvent[]) =>
        ofType(events, 'tool_call_result').map((result) => result.result)
      const last = (events: AgentEvent[]) => results(events).findLast((text) => text.startsWith('Result: '))

      const replayed = await replay(recording, page, vision)
      expect(doneOf(replayed)).toMatchObject({ reason: 'model_stop', replay: { healed: 0 } })
      expect(last(replayed)).toBe(`Result: ${JSON.stringify([wanted, wanted2])}`)

      // Its start page is the recording's own: the spec needs no START_URL, so all specs share one run.
      const startUrl = `${server.url}/${page}`
      const spec = playwrightSpec(
        { ...recording, startUrl },
        { executablePath: '/usr/bin/chromium' },
      ).replace(/\n\}\)\n$/, `\n  await expect(page.locator('${selector}')).toHaveText('${wanted}')\n})\n`)
      expect(spec).not.toMatch(/is not exported: \{"(?!script)/)
      exported.push({ name, spec })
    },
    120_000,
  )
})

/** The rating button's, the knob's and the bin's boxes, as an earlier step's script reported them. */
function boxesIn(prompt: string): number[] {
  return JSON.parse(/Result: (\[[\d.,]+\])/.exec(prompt)?.[1] ?? '[]') as number[]
}

const pointSteps: Step[] = [
  checkStep(
    "return ['rating', 'knob', 'bin'].flatMap((id) => { const box = document.getElementById(id)?.getBoundingClientRect(); return [box?.x ?? 0, box?.y ?? 0] })",
  ),
  (prompt) => {
    const [x = 0, y = 0] = boxesIn(prompt)
    return { hover_at: { x: x + 70, y: y + 20 } }
  },
  (prompt) => {
    const [x = 0, y = 0] = boxesIn(prompt)
    return { click_at: { x: x + 130, y: y + 20 } }
  },
  (prompt) => {
    const [, , kx = 0, ky = 0, bx = 0, by = 0] = boxesIn(prompt)
    return { drag_at: { from: { x: kx + 30, y: ky + 15 }, to: { x: bx + 80, y: by + 30 } } }
  },
]

describe('coordinate actions are recorded on the elements under their points', () => {
  const check = "return ['status', 'hover', 'drop'].map((id) => document.getElementById(id).textContent)"
  const wanted = ['Rated 4 stars', 'Hovering 2 stars', 'Dropped in the bin']

  test('a replay and the export act at the same place in each element after the layout moved', async () => {
    const { recording } = await record('gestures/point-targets.html', [...pointSteps, checkStep(check)], true)
    const pointed = recording.steps.filter((step) => step.tool.endsWith('_at'))
    expect(pointed.map((step) => [step.tool, step.target?.name])).toEqual([
      ['hover_at', 'Rating'],
      ['click_at', 'Rating'],
      ['drag_at', 'Knob'],
    ])
    expect(pointed[1]?.offset?.x).toBeCloseTo(0.65, 2)
    expect(pointed[2]?.drop?.target.name).toBe('Bin')

    // ?shift=1 moves every element farther than its own size: only the element's place in its box is right.
    const replayed = await replay(recording, 'gestures/point-targets.html?shift=1', true)
    expect(doneOf(replayed)).toMatchObject({ reason: 'model_stop', replay: { healed: 0 } })
    const results = ofType(replayed, 'tool_call_result').map((result) => result.result)
    expect(results.findLast((text) => text.startsWith('Result: '))).toBe(`Result: ${JSON.stringify(wanted)}`)

    // The moved page as the spec's own start page (not START_URL), so it runs with the file's other specs.
    const shifted = `${server.url}/gestures/point-targets.html?shift=1`
    const spec = playwrightSpec(
      { ...recording, startUrl: shifted },
      { executablePath: '/usr/bin/chromium' },
    ).replace(
      /\n\}\)\n$/,
      `\n  await expect(page.locator('#status')).toHaveText('${wanted[0]}')\n  await expect(page.locator('#drop')).toHaveText('${wanted[2]}')\n})\n`,
    )
    expect(spec).toContain('position: { x: box.width * ')
    exported.push({ name: 'point targets, layout moved', spec })
  }, 120_000)

  test('a replay whose element is gone is not done at the raw point: without a model it stops there', async () => {
    const { recording } = await record('gestures/point-targets.html', pointSteps.slice(0, 3), true)
    const replayed = await replay(recording, 'gestures/point-targets.html?gone=1', true)
    expect(doneOf(replayed)).toMatchObject({ reason: 'error' })
    expect(doneOf(replayed).result.text).toMatch(/step 2 \(hover_at button 'Rating'\)/)
  }, 60_000)
})

test('every spec the tests above exported compiles under strict tsc and passes playwright test', async () => {
  const [first, ...rest] = exported
  if (!first) throw new Error('No test above exported a spec')
  const folder = specFolder(first.spec)
  const more = rest.map((item, index) => {
    const file = join(folder.dir, `exported-${index + 2}.spec.ts`)
    writeFileSync(file, item.spec)
    return file
  })
  const names = exported.map((item, index) => `${index + 1}. ${item.name}`).join('\n')
  try {
    expect(tscOutput(folder.dir, folder.file, ...more), `tsc, of:\n${names}`).toBe('')
    // Without START_URL: each spec starts on its own recording's page.
    const { START_URL: _, ...env } = process.env
    const run = await playwrightTest(folder, env, more)
    expect(run.output, names).toMatch(new RegExp(`\\b${exported.length} passed`))
    expect(run.status, run.output).toBe(0)
  } finally {
    folder.remove()
  }
}, 120_000)
