import type { BrowserFailure, PageObservation } from '../../browser/browser-session.ts'
import type { EventDraft } from '../../events/events.ts'
import { AbortError, isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { chargeUsage } from '../model-calls/usage-accounting.ts'
import { buildStepPromptParts } from '../prompt/step-prompt.ts'
import type { AgentContext, RunRecord, TransitionResult } from '../run/run-context.ts'
import { limitWarnings } from '../run/run-limits.ts'
import { startStreaming } from '../steps/start-streaming.ts'
import { keptScreenshotUrl, startStepScreenshot } from '../steps/step-screenshot.ts'

/** Steps remaining (this one included) at which the model is told to wrap up. */
const waitObservationThresholdMs = 3_000
const maxConsecutiveObserveFailures = 3

/**
 * Observe the page, run the stuck detectors, assemble the prompt, start the
 * model stream. The step begins in the run (its counter, its record) through
 * the update, once the transition has returned.
 */
export async function thinking(ctx: AgentContext): Promise<TransitionResult> {
  // A browser that died since the last step is replaced before a step begins (no step is counted for it).
  const gone = browserGone(ctx)
  if (gone) return { next: { type: 'restarting_browser', failure: gone }, effects: [] }
  // The run as this step leaves it: built up here, applied by the loop.
  const run: RunRecord = { ...ctx.run, step: ctx.run.step + 1, notes: [...ctx.run.notes] }
  // The last step's screenshot was taken before its action (which waited for it): its warnings, if any, come first.
  const effects: EventDraft[] = [
    ...((await ctx.run.pendingScreenshot?.settled) ?? []),
    { type: 'step_started', step: run.step, maxTurns: ctx.maxTurns },
  ]
  run.pendingScreenshot = undefined
  for (const { limit, code, message } of limitWarnings(ctx, run.step)) {
    run.notes.push(message)
    run.warnedLimits = [...run.warnedLimits, limit]
    effects.push({ type: 'warning', code, message })
  }
  if (run.waitedMs >= waitObservationThresholdMs && !run.waitWarned) {
    run.waitWarned = true
    const message = `You have waited ${Math.round(run.waitedMs / 1000)} s in total. Waiting rarely helps; act on the page instead.`
    run.notes.push(message)
    effects.push({ type: 'warning', code: 'wait_accumulated', message })
  }

  const first = await observe(ctx, run, effects)
  // It died while this step observed it: the step never began (its events are dropped), the browser is replaced.
  if (isFailure(first, 'gone'))
    return { next: { type: 'restarting_browser', failure: first.gone }, effects: [] }
  if (isFailure(first, 'giveUp')) {
    const text = `The browser page could not be observed: ${first.giveUp}`
    return {
      next: { type: 'done', reason: 'error', result: { success: false, text } },
      effects,
      update: { run },
    }
  }
  let observation = first

  if (ctx.stuck && observation) {
    const verdict = await ctx.stuck.evaluate({
      step: run.step,
      maxTurns: ctx.maxTurns,
      task: ctx.task,
      history: run.history,
      observation,
      failedActions: run.failedActions,
      runTool: (name, input) => runToolDirectly(ctx, run.step, name, input),
      model: ctx.model,
      signal: ctx.signal,
    })
    effects.push(...verdict.events)
    run.notes.push(...verdict.notes)
    if (verdict.guidance) run.guidance = [...run.guidance, verdict.guidance]
    if (verdict.usage) {
      const charged = chargeUsage({ ...ctx, run }, { source: 'supervisor', usage: verdict.usage })
      effects.push(charged.event)
      Object.assign(run, charged.totals)
    }
    if (verdict.end) {
      // Its observation already named the step's picture: the run's end waits for it to be kept.
      if (observation) await screenshotStep(ctx, run, observation)
      return {
        next: { type: 'done', reason: 'loop_detected', result: { success: false, text: verdict.end.text } },
        effects,
        update: { run },
      }
    }
    if (verdict.reobserve) {
      const again = await observe(ctx, run, effects)
      if (again && !isFailure(again, 'gone') && !isFailure(again, 'giveUp')) observation = again
    }
  }

  if (observation) await screenshotStep(ctx, run, observation)
  const image = ctx.vision ? run.lastScreenshot : undefined
  const prompt = {
    system: ctx.systemPrompt,
    ...buildStepPromptParts({ task: ctx.task, step: run.step, maxTurns: ctx.maxTurns, run, observation }),
    ...(image ? { image } : {}),
  }
  run.notes = []
  run.history = [
    ...run.history,
    { step: run.step, url: observation?.url ?? '', fingerprint: observation?.fingerprint ?? '' },
  ]
  return { next: startStreaming({ ctx, prompt, attempt: 1 }), effects, update: { run } }
}

/** An observation that failed for good: the browser is gone, or the page failed too often in a row (and why). */
type ObserveFailure = { gone: BrowserFailure } | { giveUp: string }

function isFailure<K extends 'gone' | 'giveUp'>(
  outcome: PageObservation | ObserveFailure | undefined,
  key: K,
): outcome is Extract<ObserveFailure, Record<K, unknown>> {
  return outcome !== undefined && key in outcome
}

/** The run's browser is gone, not just its page: no observation or action can work until it is replaced. */
function browserGone(ctx: AgentContext): BrowserFailure | undefined {
  const failure = ctx.browser?.failure?.()
  return failure && failure.kind !== 'page_crashed' ? failure : undefined
}

/**
 * A page that cannot be observed is a note for the model, until it happens
 * too often in a row. Writes into `run`, this step's own copy of the record.
 */
async function observe(
  ctx: AgentContext,
  run: RunRecord,
  effects: EventDraft[],
): Promise<PageObservation | ObserveFailure | undefined> {
  if (!ctx.browser) return undefined
  try {
    // A page that echoes a secret's value shows its placeholder to everything downstream.
    const observation = ctx.secrets.scrubDeep(await ctx.browser.observe(ctx.signal))
    run.consecutiveObserveFailures = 0
    run.lastObservation = observation
    const screenshot = keptScreenshotUrl(ctx, run.step)
    effects.push({
      type: 'observation',
      url: observation.url,
      title: observation.title,
      tabs: observation.tabs,
      refs: observation.refs,
      pageViewTokens: observation.tokens,
      notes: observation.notes,
      ...(screenshot ? { screenshot } : {}),
      ...(observation.pageLog ? { pageLog: observation.pageLog } : {}),
    })
    for (const { code, message } of observation.warnings ?? [])
      effects.push({ type: 'warning', code, message })
    return observation
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    const gone = browserGone(ctx)
    if (gone) return { gone }
    run.consecutiveObserveFailures++
    const message = `The page could not be observed: ${describeError(error)}`
    effects.push({ type: 'error', message, retryable: true })
    run.notes.push(message)
    if (run.consecutiveObserveFailures < maxConsecutiveObserveFailures) return undefined
    // A crashed page says so; Playwright's own error for it ("Target crashed") names nothing a person knows.
    return { giveUp: ctx.browser?.failure?.()?.message ?? describeError(error) }
  }
}

/**
 * Starts the step's screenshot, of the observation the prompt holds. Only the
 * model's picture (vision) is waited for: otherwise the model request goes out
 * at once and the picture is taken meanwhile (the next action waits for it).
 * Its files are written while the model thinks either way; the run keeps the
 * job as pending until the next step or the run's end.
 */
async function screenshotStep(ctx: AgentContext, run: RunRecord, observation: PageObservation) {
  const shot = startStepScreenshot(ctx, run.step, observation.pageView)
  if (!shot) return
  run.pendingScreenshot = shot
  if (!ctx.vision) return
  run.lastScreenshot = await shot.image
  // Aborted meanwhile: the transition's result (and its observation) is dropped, and so is the picture.
  if (ctx.signal.aborted) {
    shot.stop()
    await shot.settled
    throw new AbortError()
  }
}

/** Recovery strategies run registered tools outside the model's queue; their results are reported by the detector. */
async function runToolDirectly(ctx: AgentContext, step: number, name: string, input: unknown) {
  const tool = ctx.tools.get(name)
  if (!tool) return { ok: false, text: `No ${name} action in this run.` }
  const parsed = tool.input.safeParse(input)
  if (!parsed.success) return { ok: false, text: `Invalid input for ${name}.` }
  try {
    return await tool.execute(parsed.data, {
      signal: ctx.signal,
      runId: ctx.runId,
      step,
      callId: `recovery_${step}_${name}`,
      emit: () => {},
    })
  } catch (error) {
    if (isAbortError(error)) throw error
    return { ok: false, text: `${name} failed: ${describeError(error)}` }
  }
}
