import type { LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { StepRecord } from '../../../src/agent/run/step-record.ts'
import type { StuckDetector, StuckVerdict } from '../../../src/agent/stuck/stuck-detector.ts'
import type { PageObservation } from '../../../src/browser/browser-session.ts'
import type { EventDraft } from '../../../src/events/events.ts'
import type { ToolResult } from '../../../src/tool.ts'

/** A page of the simulated site. */
export interface SimPage {
  url: string
  fingerprint: string
  pageView?: string
}

/**
 * Drives a detector the way the thinking state does: observe, evaluate,
 * re-observe after a recovery, record the step, let the scripted "model" act.
 */
export interface Simulation {
  page: SimPage
  history: StepRecord[]
  toolCalls: { name: string; input: unknown }[]
  verdicts: { step: number; verdict: StuckVerdict }[]
  events: EventDraft[]
  failedActions: number
}

export interface SimulationScript {
  start: SimPage
  /** The model's action at a step, and what it does to the page. */
  act(
    step: number,
    page: SimPage,
  ): { tool: string; input: unknown; ok?: boolean; text?: string; next?: SimPage }
  /** What a recovery tool does to the page (default: nothing, ok). */
  recover?(
    name: string,
    input: unknown,
    page: SimPage,
  ): { result: ToolResult; next?: SimPage } | Promise<never>
  model?: LanguageModel
  maxTurns?: number
  signal?: AbortSignal
}

export function observation(page: SimPage): PageObservation {
  const pageView = page.pageView ?? `URL: ${page.url}\n- main "${page.fingerprint}"`
  return {
    url: page.url,
    title: page.fingerprint,
    tabs: [{ id: 't1', url: page.url, title: page.fingerprint, active: true }],
    refs: 1,
    pageView,
    tokens: Math.ceil(pageView.length / 4),
    fingerprint: page.fingerprint,
    notes: [],
  }
}

/** Runs steps until the detector ends the run or `maxTurns` is reached. */
export async function simulate(detector: StuckDetector, script: SimulationScript): Promise<Simulation> {
  const sim: Simulation = {
    page: script.start,
    history: [],
    toolCalls: [],
    verdicts: [],
    events: [],
    failedActions: 0,
  }
  const maxTurns = script.maxTurns ?? 30
  const signal = script.signal ?? new AbortController().signal
  for (let step = 1; step <= maxTurns; step++) {
    const verdict = await detector.evaluate({
      step,
      maxTurns,
      task: 'Subscribe to the newsletter.',
      history: sim.history,
      observation: observation(sim.page),
      failedActions: sim.failedActions,
      async runTool(name, input) {
        sim.toolCalls.push({ name, input })
        const outcome = await (script.recover?.(name, input, sim.page) ?? {
          result: { ok: true, text: `Did ${name}.` },
        })
        if (outcome.next) sim.page = outcome.next
        return outcome.result
      },
      model: script.model ?? unusedModel(),
      signal,
    })
    sim.verdicts.push({ step, verdict })
    sim.events.push(...verdict.events)
    if (verdict.end) break
    const record: StepRecord = { step, url: sim.page.url, fingerprint: sim.page.fingerprint }
    sim.history.push(record)
    const action = script.act(step, sim.page)
    record.action = { tool: action.tool, input: action.input }
    record.result = { ok: action.ok ?? true, text: action.text ?? `Did ${action.tool}.` }
    if (action.ok === false) sim.failedActions++
    if (action.next) sim.page = action.next
  }
  return sim
}

/** A supervisor model answering with the given decisions in turn. */
export function supervisorModel(...answers: object[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: answers.map((answer) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(answer) }],
      finishReason: { unified: 'stop' as const, raw: undefined },
      usage: {
        inputTokens: { total: 900, noCache: 900, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 60, text: 60, reasoning: undefined },
      },
      warnings: [],
    })),
  })
}

/** A model that fails the test if anything asks it. */
export function unusedModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      throw new Error('The supervisor was not expected to be called.')
    },
  })
}

/** The events as short strings: `stuck_detected:stall@5`, `recovery:escape`. */
export function eventTrail(events: EventDraft[]): string[] {
  return events.map((event) => {
    if (event.type === 'stuck_detected') return `stuck_detected:${event.kind}@${event.step}`
    if (event.type === 'recovery') return `recovery:${event.strategy}`
    return event.type
  })
}
