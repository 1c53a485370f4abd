import { describe, expect, test } from 'vitest'
import { createStuckDetector } from '../../../src/agent/stuck/stuck-monitor.ts'
import { AbortError } from '../../../src/tool.ts'
import { eventTrail, type SimPage, simulate, supervisorModel, unusedModel } from './simulate.ts'

const home: SimPage = { url: 'https://news.test/', fingerprint: 'home' }
const form: SimPage = { url: 'https://news.test/subscribe', fingerprint: 'form-behind-modal' }

/** Opens the form, then keeps clicking a button that does nothing. */
const stuckOnForm = {
  start: home,
  act: (step: number) =>
    step === 1
      ? { tool: 'click', input: { ref: 'l1' }, next: form }
      : { tool: 'click', input: { ref: 'b7xk' }, text: "Clicked button 'Subscribe'." },
  recover: (name: string, input: unknown) =>
    name === 'navigate'
      ? {
          result: { ok: true, text: 'Navigated.' },
          next: { url: (input as { url: string }).url, fingerprint: 'home' },
        }
      : { result: { ok: true, text: `Did ${name}.` } },
}

describe('the escalation sequence', () => {
  test('observation, each recovery once in order, supervisor guidance, reminders, then the ceiling', async () => {
    const model = supervisorModel({
      decision: 'new_approach',
      reason: 'The button is covered by a cookie banner.',
      approach: 'Accept the cookie banner first, then click Subscribe.',
    })
    const sim = await simulate(createStuckDetector(), { ...stuckOnForm, model })

    const byStep = new Map(sim.verdicts.map(({ step, verdict }) => [step, eventTrail(verdict.events)]))
    expect(Object.fromEntries(byStep)).toEqual({
      1: [],
      2: [],
      3: [],
      4: [],
      5: ['stuck_detected:stall@5', 'stuck_detected:repeated_action@5'],
      6: ['stuck_detected:stall@6', 'recovery:scroll_top'],
      7: ['stuck_detected:stall@7', 'recovery:escape'],
      8: ['stuck_detected:stall@8', 'recovery:reload'],
      9: ['stuck_detected:stall@9', 'recovery:navigate_last_progress'],
      10: ['stuck_detected:stall@10', 'recovery:supervisor'],
      11: ['stuck_detected:stall@11'],
      12: ['stuck_detected:stall@12'],
      13: ['stuck_detected:stall@13'],
    })
    expect(sim.toolCalls).toEqual([
      { name: 'scroll', input: { direction: 'up', pages: 20 } },
      { name: 'press_key', input: { key: 'Escape' } },
      { name: 'reload', input: {} },
      { name: 'navigate', input: { url: 'https://news.test/' } },
    ])

    const verdict = (step: number) => sim.verdicts.find((entry) => entry.step === step)!.verdict
    // 1. An observation naming the pattern and what was repeated.
    expect(verdict(5).notes).toEqual([expect.stringContaining('click {"ref":"b7xk"}')])
    expect(verdict(5).notes[0]).toContain('has not changed after the last 3 actions')
    expect(verdict(5).reobserve).toBeUndefined()
    // 2. Each recovery is an observation too, and asks for the page to be observed again.
    expect(verdict(7).notes[0]).toContain('the runtime tried to press Escape')
    expect(verdict(7).reobserve).toBe(true)
    const escapeEvent = verdict(7).events.find((event) => event.type === 'recovery')
    expect(escapeEvent).toMatchObject({
      kind: 'stall',
      strategy: 'escape',
      detail: expect.stringContaining('ok'),
    })
    // 3. The supervisor's approach becomes guidance; its tokens are reported.
    expect(verdict(10).guidance).toBe('Accept the cookie banner first, then click Subscribe.')
    expect(verdict(10).usage).toEqual({ inputTokens: 900, outputTokens: 60, totalTokens: 960 })
    expect(verdict(11).notes[0]).toContain("Follow the supervisor's approach: Accept the cookie banner")
    expect(model.doGenerateCalls).toHaveLength(1)
    // 4. The ceiling ends the run and says what was tried.
    const end = verdict(13).end?.text ?? ''
    expect(end).toContain('stuck (stall, repeated_action) since step 5')
    expect(end).toContain("Neither the recoveries nor the supervisor's new approach freed it.")
    for (const tried of [
      'told the agent',
      'tried to scroll to the top',
      'tried to press Escape',
      'tried to reload',
      'tried to navigate to news.test/',
      'a supervisor proposed',
    ]) {
      expect(end).toContain(tried)
    }
  })

  test('the supervisor sees the whole history and answers through a structured output', async () => {
    const model = supervisorModel({
      decision: 'abort',
      reason: 'The form needs a login the agent does not have.',
      approach: '',
    })
    const sim = await simulate(createStuckDetector(), { ...stuckOnForm, model })

    const call = model.doGenerateCalls[0]!
    expect(call.responseFormat).toMatchObject({
      type: 'json',
      schema: expect.objectContaining({ type: 'object' }),
    })
    const prompt = JSON.stringify(call.prompt)
    expect(prompt).toContain('Subscribe to the newsletter.')
    for (let step = 1; step <= 9; step++) expect(prompt).toContain(`Step ${step} on`)
    expect(prompt).toContain('tried to press Escape')
    // The abort ends the run at once, with the supervisor's reason.
    const last = sim.verdicts.at(-1)!
    expect(last.step).toBe(10)
    expect(last.verdict.end?.text).toContain(
      'A supervisor reviewed the run and stopped it: The form needs a login',
    )
    expect(eventTrail(last.verdict.events)).toEqual(['stuck_detected:stall@10', 'recovery:supervisor'])
  })

  test('a recovery that works ends the episode: no more recoveries, no supervisor', async () => {
    let visited = 0
    const sim = await simulate(createStuckDetector(), {
      start: home,
      maxTurns: 16,
      act: (step, page) => {
        if (step === 1) return { tool: 'click', input: { ref: 'l1' }, next: form }
        if (page.fingerprint === 'form-behind-modal') return { tool: 'click', input: { ref: 'b7xk' } }
        visited++
        return {
          tool: 'click',
          input: { ref: `next${visited}` },
          next: { url: `https://news.test/p/${visited}`, fingerprint: `p${visited}` },
        }
      },
      // Escape closes the modal that covered the form.
      recover: (name) => ({
        result: { ok: true, text: `Did ${name}.` },
        next: name === 'press_key' ? { url: form.url, fingerprint: 'form' } : undefined,
      }),
      model: unusedModel(),
    })
    expect(eventTrail(sim.events)).toEqual([
      'stuck_detected:stall@5',
      'stuck_detected:repeated_action@5',
      'stuck_detected:stall@6',
      'recovery:scroll_top',
      'stuck_detected:stall@7',
      'recovery:escape',
    ])
    expect(sim.toolCalls.map((call) => call.name)).toEqual(['scroll', 'press_key'])
    expect(sim.verdicts.at(-1)?.verdict.end).toBeUndefined()
  })

  test('a new stuck episode after quiet steps starts again with an observation', async () => {
    const sim = await simulate(createStuckDetector(), {
      start: form,
      maxTurns: 14,
      act: (step) =>
        // Stuck at steps 1-4, progress at 5-8, stuck again from step 9.
        step >= 5 && step <= 8
          ? {
              tool: 'click',
              input: { ref: `n${step}` },
              next: { url: `https://news.test/${step}`, fingerprint: `n${step}` },
            }
          : { tool: 'click', input: { ref: 'b7xk' } },
      model: unusedModel(),
    })
    expect(eventTrail(sim.events)).toEqual([
      'stuck_detected:stall@4',
      'stuck_detected:repeated_action@4',
      'stuck_detected:stall@5',
      'recovery:scroll_top',
      'stuck_detected:stall@12',
      'stuck_detected:repeated_action@12',
      'stuck_detected:stall@13',
      'recovery:scroll_top',
      'stuck_detected:stall@14',
      'recovery:escape',
    ])
    expect(sim.verdicts.find((entry) => entry.step === 12)?.verdict.notes[0]).toContain(
      'You appear to be stuck',
    )
  })

  test('strategies that do not apply are passed over; a failed recovery is reported, with no re-observation', async () => {
    const sim = await simulate(createStuckDetector({ maxSupervisorCalls: 0 }), {
      start: form,
      act: () => ({ tool: 'click', input: { ref: 'b7xk' } }),
      recover: (name) => ({
        result: { ok: name !== 'reload', text: name === 'reload' ? 'No reload action in this run.' : 'ok' },
      }),
      model: unusedModel(),
    })
    expect(eventTrail(sim.events).filter((entry) => entry.startsWith('recovery'))).toEqual([
      'recovery:scroll_top',
      'recovery:escape',
      'recovery:reload',
    ])
    const reload = sim.verdicts.find(({ verdict }) =>
      verdict.events.some((event) => event.type === 'recovery' && event.strategy === 'reload'),
    )!
    expect(reload.verdict.reobserve).toBe(false)
    expect(reload.verdict.notes[0]).toContain('(it failed: "No reload action in this run.")')
    // No earlier page to return to, no supervisor: the run ends at the next stuck step.
    const last = sim.verdicts.at(-1)!
    expect(last.step).toBe(8)
    expect(last.verdict.end?.text).toContain('navigate_last_progress: not applicable')
    expect(last.verdict.end?.text).toContain('The recoveries did not free it.')
  })

  test('a supervisor that fails is reported; the run ends at the next stuck step', async () => {
    const model = supervisorModel({ verdict: 'no idea' })
    const sim = await simulate(createStuckDetector(), { ...stuckOnForm, model })
    const failed = sim.verdicts.find((entry) => entry.step === 10)!.verdict
    expect(failed.events.at(-1)).toMatchObject({
      type: 'recovery',
      strategy: 'supervisor',
      detail: expect.stringMatching(/^Failed: /),
    })
    expect(failed.guidance).toBeUndefined()
    expect(sim.verdicts.at(-1)?.step).toBe(11)
    expect(sim.verdicts.at(-1)?.verdict.end?.text).toContain('asking a supervisor failed')
  })

  test('the hard ceiling on stuck steps holds whatever the ladder says', async () => {
    const sim = await simulate(createStuckDetector({ maxStuckSteps: 3 }), {
      start: form,
      act: () => ({ tool: 'click', input: { ref: 'b7xk' } }),
      model: unusedModel(),
    })
    expect(eventTrail(sim.events)).toEqual([
      'stuck_detected:stall@4',
      'stuck_detected:repeated_action@4',
      'stuck_detected:stall@5',
      'recovery:scroll_top',
      'stuck_detected:stall@6',
    ])
    expect(sim.verdicts.at(-1)?.verdict.end?.text).toContain(
      'It was stuck on 3 steps of the run, the most allowed.',
    )
  })
})

describe('the error budget', () => {
  test('warns when one failure is left, then ends the run beyond max(3, ceil(maxTurns / 3))', async () => {
    let n = 0
    const sim = await simulate(createStuckDetector(), {
      start: home,
      maxTurns: 9,
      act: () => {
        n++
        return {
          tool: 'click',
          input: { ref: `gone${n}` },
          ok: false,
          text: `Element gone${n} is no longer on the page.`,
          next: { url: home.url, fingerprint: `h${n}` },
        }
      },
      model: unusedModel(),
    })
    expect(sim.verdicts.find((entry) => entry.step === 4)?.verdict.notes).toEqual([
      expect.stringContaining('3 of your actions have failed; the run stops after 4'),
    ])
    const last = sim.verdicts.at(-1)!
    expect(last.step).toBe(5)
    expect(eventTrail(last.verdict.events)).toEqual(['stuck_detected:error_budget@5'])
    expect(last.verdict.end?.text).toContain("4 actions have failed, more than the run's budget of 3")
  })
})

describe('the detector', () => {
  test('judges each step once: a second call in the same step (after re-observing) is empty', async () => {
    const detector = createStuckDetector({ stallSteps: 1, repeatCount: 99 })
    const input = {
      step: 2,
      maxTurns: 10,
      task: 't',
      history: [
        {
          step: 1,
          url: form.url,
          fingerprint: form.fingerprint,
          action: { tool: 'click', input: { ref: 'b' } },
          result: { ok: true, text: '' },
        },
      ],
      observation: {
        url: form.url,
        title: '',
        tabs: [],
        refs: 0,
        pageView: '',
        tokens: 0,
        fingerprint: form.fingerprint,
        notes: [],
      },
      failedActions: 0,
      runTool: async () => ({ ok: true, text: '' }),
      model: unusedModel(),
      signal: new AbortController().signal,
    }
    expect((await detector.evaluate(input)).events).toHaveLength(1)
    expect(await detector.evaluate(input)).toEqual({ events: [], notes: [] })
  })

  test('holds its escalation per instance', async () => {
    const script = {
      start: form,
      maxTurns: 5,
      act: () => ({ tool: 'click', input: { ref: 'b7xk' } }),
      model: unusedModel(),
    }
    const first = await simulate(createStuckDetector(), script)
    const second = await simulate(createStuckDetector(), script)
    expect(eventTrail(second.events)).toEqual(eventTrail(first.events))
  })

  test('AbortError from a recovery tool propagates', async () => {
    const controller = new AbortController()
    const run = simulate(createStuckDetector(), {
      start: form,
      act: () => ({ tool: 'click', input: { ref: 'b7xk' } }),
      recover: () => {
        controller.abort()
        return Promise.reject(new AbortError())
      },
      model: unusedModel(),
      signal: controller.signal,
    })
    await expect(run).rejects.toThrow(AbortError)
  })

  test('an abort during the supervisor call propagates instead of counting as a failed supervisor', async () => {
    const controller = new AbortController()
    const model = supervisorModel({ decision: 'abort', reason: 'x', approach: '' })
    model.doGenerate = async (options) => {
      controller.abort()
      options.abortSignal?.throwIfAborted()
      throw new Error('unreachable')
    }
    await expect(
      simulate(createStuckDetector(), { ...stuckOnForm, model, signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' })
  })

  test('rejects thresholds that make no sense', () => {
    expect(() => createStuckDetector({ stallSteps: 0 })).toThrow(RangeError)
    expect(() => createStuckDetector({ oscillationSteps: 3 })).toThrow(RangeError)
    expect(() => createStuckDetector({ urlCycleMinPeriod: 5, urlCycleMaxPeriod: 4 })).toThrow(RangeError)
  })
})
