import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import type { Screenshot } from '../../../src/browser/browser-session.ts'
import type { AgentEvent } from '../../../src/events/events.ts'
import { AbortError } from '../../../src/tool.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'

// Where the step's screenshot sits in the step: with vision off it must not delay the model request,
// yet its file, URL and any warning still arrive, and nothing is written after the run's `done`.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sextant-shot-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const picture: Screenshot = {
  data: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
  mediaType: 'image/jpeg',
  width: 2,
  height: 2,
}

/** A fake browser whose screenshots resolve (or fail) only when the test says so. */
function lateScreenshots(options: { ignoresAbort?: boolean; onTaken?: () => void } = {}) {
  const waiting: { step: number; release: (outcome: Screenshot | Error) => void }[] = []
  let taken = 0
  const browser = {
    ...fakeBrowser(),
    pictures: {
      screenshot: (_options: unknown, signal: AbortSignal) =>
        new Promise<Screenshot>((resolve, reject) => {
          taken++
          const release = (outcome: Screenshot | Error) =>
            outcome instanceof Error ? reject(outcome) : resolve(outcome)
          waiting.push({ step: taken, release })
          if (!options.ignoresAbort) signal.addEventListener('abort', () => reject(new AbortError()))
          options.onTaken?.()
        }),
      elementBox: async () => undefined,
    },
  }
  /** Lets the oldest screenshot still waiting end with `outcome`. */
  const release = (outcome: Screenshot | Error = picture) => waiting.shift()?.release(outcome)
  return { browser, release, pending: () => waiting.length }
}

const stepFile = (runId: string, step: number) => join(dir, runId, 'steps', `${step}.jpg`)
const runIdOf = (events: AgentEvent[]) => events[0]?.runId ?? ''

describe('vision off: the model request does not wait for the screenshot', () => {
  test('the model is asked while the screenshot is still being taken; its file and URL arrive all the same', async () => {
    const late = lateScreenshots()
    const pendingWhenAsked: number[] = []
    const ask = (output: Record<string, unknown>) => () => {
      pendingWhenAsked.push(late.pending())
      late.release()
      return { output: agentOutput(output) }
    }
    const events = await collect({
      task: 't',
      model: scriptedModel([ask({ click: { ref: 'b1' } }), ask({ done: { text: 'ok', success: true } })]),
      browser: late.browser,
      screenshots: { dir },
    })
    expect(doneOf(events).reason).toBe('model_stop')
    // Each step's screenshot was still waiting when its model request went out.
    expect(pendingWhenAsked).toEqual([1, 1])
    const runId = runIdOf(events)
    expect(ofType(events, 'observation').map((o) => o.screenshot)).toEqual([
      `/v1/runs/${runId}/steps/1/screenshot`,
      `/v1/runs/${runId}/steps/2/screenshot`,
    ])
    expect(existsSync(stepFile(runId, 1))).toBe(true)
    // The last step's file is written before the run's `done`, not after.
    expect(existsSync(stepFile(runId, 2))).toBe(true)
    expect(ofType(events, 'warning')).toEqual([])
  })

  test('a screenshot that fails after the request went out still warns: in the next step, or before done', async () => {
    const late = lateScreenshots()
    const events = await collect({
      task: 't',
      model: scriptedModel([
        () => {
          late.release(new Error('capture broke'))
          return { output: agentOutput({ click: { ref: 'b1' } }) }
        },
        () => {
          late.release(new Error('capture broke again'))
          return { output: agentOutput({ done: { text: 'ok', success: true } }) }
        },
      ]),
      browser: late.browser,
      screenshots: { dir },
    })
    const types = events.map((event) => event.type)
    const warnings = ofType(events, 'warning')
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['screenshot_failed', expect.stringMatching(/step 1 could not be taken: capture broke$/)],
      ['screenshot_failed', expect.stringMatching(/step 2 could not be taken: capture broke again$/)],
    ])
    // Step 1's warning opens step 2; step 2's comes before the run's done.
    expect(types.indexOf('warning')).toBeLessThan(types.lastIndexOf('step_started'))
    expect(types.slice(-2)).toEqual(['warning', 'done'])
  })

  test('a run aborted while its screenshot is taken still keeps it (its observation named it), before done', async () => {
    const late = lateScreenshots()
    const controller = new AbortController()
    const events = await collect({
      task: 't',
      model: scriptedModel([
        () => {
          controller.abort()
          setImmediate(() => late.release())
          return { output: agentOutput({ click: { ref: 'b1' } }), hang: true }
        },
      ]),
      browser: late.browser,
      screenshots: { dir },
      signal: controller.signal,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(ofType(events, 'observation')[0]?.screenshot).toBe(
      `/v1/runs/${runIdOf(events)}/steps/1/screenshot`,
    )
    expect(existsSync(stepFile(runIdOf(events), 1))).toBe(true)
  })

  test('a screenshot that does not come by the deadline is stopped: no file is written, not even after done', async () => {
    const late = lateScreenshots({ ignoresAbort: true })
    const controller = new AbortController()
    const events = await collect({
      task: 't',
      model: scriptedModel([
        () => {
          controller.abort()
          return { output: agentOutput({ click: { ref: 'b1' } }), hang: true }
        },
      ]),
      browser: late.browser,
      screenshots: { dir },
      signal: controller.signal,
      abortDeadlineMs: 50,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    // The screenshot ignored the abort and ends only now, after done: it must not write its file.
    late.release()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(existsSync(stepFile(runIdOf(events), 1))).toBe(false)
  })
})

test('vision on: the model request waits for the picture, and the prompt carries it', async () => {
  // The picture arrives a turn of the event loop after it was asked for.
  const late = lateScreenshots({ onTaken: () => setImmediate(() => late.release()) })
  const pendingWhenAsked: number[] = []
  const model = scriptedModel([
    () => {
      pendingWhenAsked.push(late.pending())
      return { output: agentOutput({ done: { text: 'ok', success: true } }) }
    },
  ])
  const events = await collect({ task: 't', model, browser: late.browser, vision: true })
  expect(doneOf(events).reason).toBe('model_stop')
  expect(pendingWhenAsked).toEqual([0])
  const prompt = JSON.stringify(model.doStreamCalls[0]?.prompt)
  expect(prompt).toMatch(/"type":"file"[^}]*"mediaType":"image\/jpeg"/)
})

test('a run the stuck detector ends keeps the screenshot its last observation names', async () => {
  const late = lateScreenshots({ onTaken: () => setImmediate(() => late.release()) })
  const events = await collect({
    task: 't',
    model: scriptedModel([]),
    browser: late.browser,
    screenshots: { dir },
    stuck: () => ({ evaluate: async () => ({ events: [], notes: [], end: { text: 'Going in circles.' } }) }),
  })
  expect(doneOf(events).reason).toBe('loop_detected')
  const named = ofType(events, 'observation').map((observation) => observation.screenshot)
  expect(named).toEqual([`/v1/runs/${runIdOf(events)}/steps/1/screenshot`])
  expect(existsSync(stepFile(runIdOf(events), 1))).toBe(true)
})
