import type { LanguageModel } from 'ai'
import type { BrowserSession } from '../browser/browser-session.ts'
import { capEvent, defaultMaxEventBytes } from '../events/event-cap.ts'
import { type AgentEvent, type EventDraft, stampEvent } from '../events/events.ts'
import { newRunId } from '../events/run-id.ts'
import { zeroUsage } from '../events/usage.ts'
import { scrubbingLogger, silentLogger } from '../log.ts'
import { findPrice, loadPriceTable } from '../model/prices.ts'
import { RunSecrets } from '../secrets/secrets.ts'
import { AbortError, abortable, isAbortError } from '../tool.ts'
import { settlesWithin } from '../util/deadline.ts'
import { describeError } from '../util/describe-error.ts'
import type {
  AgentContext,
  AgentState,
  Effect,
  ForwardedEvent,
  RunOptions,
  RunRecord,
  RunSummary,
  TransitionResult,
} from './loop-types.ts'
import { startModelStream } from './model-stream.ts'
import { noModel } from './no-model.ts'
import { agentOutputJsonSchema } from './output.ts'
import { buildSystemPrompt } from './prompt/system-prompt.ts'
import { prepareRun } from './replay-setup.ts'
import { defaultRetry } from './retry.ts'
import { backoff } from './states/backoff.ts'
import { compacting } from './states/compacting.ts'
import { confirming } from './states/confirming.ts'
import { dispatching } from './states/dispatching.ts'
import { executing } from './states/executing.ts'
import { replaying } from './states/replaying.ts'
import { streaming } from './states/streaming.ts'
import { thinking } from './states/thinking.ts'
import { createStuckDetector } from './stuck/stuck-monitor.ts'
import { canDispatch, childRunOptions } from './sub-agents/child-options.ts'
import { buildToolRegistry } from './tools/registry.ts'

export const defaultMaxTurns = 40
/** Event fields that hold fixed words of the event vocabulary, never data: not scrubbed. */
const eventVocabulary = new Set(['type', 'reason', 'by', 'code', 'kind', 'strategy', 'field'])
const defaultConfirmationTimeoutMs = 120_000
/** How long a tool that ignores the abort may keep running before a warning names it. */
const defaultAbortDeadlineMs = 3_000
const browserCloseDeadlineMs = 5_000

/** One transition of the run's state machine: a handler per state, exhaustively. */
export async function transition(state: AgentState, ctx: AgentContext): Promise<TransitionResult> {
  switch (state.type) {
    case 'thinking':
      return thinking(ctx)
    case 'backoff':
      return backoff(state, ctx)
    case 'streaming':
      return streaming(state, ctx)
    case 'executing':
      return executing(state, ctx)
    case 'confirming':
      return confirming(state, ctx)
    case 'dispatching':
      return dispatching(state, ctx)
    case 'compacting':
      return compacting(ctx)
    case 'replaying':
      return replaying(ctx)
    case 'done':
      return { next: state, effects: [] }
    default: {
      const unknownState: never = state
      throw new Error(`Unknown state ${JSON.stringify(unknownState)}`)
    }
  }
}

/** Run-wide limits, checked between transitions: abort, token budget, turns. */
export function guard(next: AgentState, ctx: AgentContext): AgentState {
  if (next.type === 'done') return next
  if (ctx.signal.aborted) return { type: 'done', reason: 'user_abort', result: abortedResult(ctx) }
  if (ctx.maxSessionTokens !== undefined && ctx.run.usage.totalTokens >= ctx.maxSessionTokens) {
    const text = `Stopped: the run used ${ctx.run.usage.totalTokens} tokens, over its budget of ${ctx.maxSessionTokens}. ${lastMemory(ctx)}`
    return { type: 'done', reason: 'budget_exceeded', result: { success: false, text: text.trim() } }
  }
  // Only a new step counts against maxTurns: a retry (backoff) continues the current one.
  if (next.type === 'thinking' && ctx.run.step >= ctx.maxTurns) {
    const text = `Stopped after ${ctx.run.step} steps without finishing. ${lastMemory(ctx)}`
    return { type: 'done', reason: 'max_turns', result: { success: false, text: text.trim() } }
  }
  return next
}

/**
 * Runs one task to its end and yields every event on the way. The final
 * `done` event is always yielded (unless the consumer stops iterating first),
 * and whatever the run opened is closed on every path.
 */
export async function* runAgent(options: RunOptions): AsyncGenerator<AgentEvent, RunSummary, undefined> {
  const now = options.now ?? Date.now
  const runId = options.runId ?? newRunId(now())
  const startedAt = now()
  if (!options.model && !options.replay)
    throw new TypeError('runAgent needs a model, or a recording to replay.')
  // Throws ReplayError before anything is yielded: a replay never starts without a value it needs.
  const prepared = prepareRun({ ...options, canHeal: options.model !== undefined })
  const model = options.model ?? noModel()
  // Throws SecretsError before anything is yielded: a run never starts with secrets it cannot scrub.
  const secrets = RunSecrets.from(options.secrets)
  const scrub = (text: string) => secrets.scrub(text)
  const baseLog = options.log ?? silentLogger()
  const log = secrets.isEmpty ? baseLog : scrubbingLogger(baseLog, scrub)
  const maxEventBytes = options.maxEventBytes ?? defaultMaxEventBytes
  const controller = new AbortController()
  const onCallerAbort = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) controller.abort(options.signal.reason)
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true })
  const signal = controller.signal

  let seq = 0
  const maxTurns = options.maxTurns ?? defaultMaxTurns
  const runModelName = options.modelName ?? modelName(model)
  const run = newRunRecord()
  /**
   * The one place events are made: every event is scrubbed of the run's
   * secrets and kept under the size cap here, whatever state drafted it. A cut
   * event is followed by a warning that says so (and the model is told).
   * A child's forwarded event keeps its child's runId and time and takes this
   * stream's next seq, so the stream stays gapless.
   */
  function* stamp(draft: Effect): Generator<AgentEvent> {
    const scrubbed = secrets.scrubDeep(draft, eventVocabulary)
    const capped = capEvent(
      isForwarded(scrubbed)
        ? { ...scrubbed, seq: seq++ }
        : stampEvent(scrubbed, runId, seq++, new Date(now())),
      maxEventBytes,
    )
    yield capped.event
    if (capped.cut > 0) {
      const message = `A ${draft.type} event was over ${Math.round(maxEventBytes / 1024)} KB: ${capped.cut} characters of its longest texts were cut (maxEventBytes).`
      run.notes.push(`${message} The page has very long texts (title or URL); rely on the page view.`)
      yield stampEvent({ type: 'warning', code: 'event_truncated', message }, runId, seq++, new Date(now()))
    }
  }
  let state: AgentState = prepared.replay ? { type: 'replaying' } : { type: 'thinking' }
  let session: { browser: BrowserSession; owned: boolean } | undefined
  /** A browser still opening when the run was aborted: closed as soon as it arrives. */
  let lateSession: Promise<void> | undefined
  let lostTransition: { label: string; settled: Promise<unknown> } | undefined
  let finished = false

  const abortDeadlineMs = options.abortDeadlineMs ?? defaultAbortDeadlineMs
  const release = async (): Promise<EventDraft[]> => {
    if (state.type === 'streaming') state.stream.cancel()
    controller.abort()
    const warnings: EventDraft[] = []
    const pending = run.inFlight ?? lostTransition
    if (pending && !(await settlesWithin(pending.settled, abortDeadlineMs))) {
      const message = `${pending.label} is still running ${abortDeadlineMs / 1000} s after the abort; it ignores the run's signal.`
      warnings.push({ type: 'warning', code: 'abort_deadline', message })
      log.warn({ runId }, message)
    }
    const closing = session?.owned ? closeSession(session.browser) : lateSession
    if (closing && !(await settlesWithin(closing, browserCloseDeadlineMs)))
      log.warn({ runId }, 'closing the browser timed out')
    options.signal?.removeEventListener('abort', onCallerAbort)
    return warnings
  }

  const closeSession = (browser: BrowserSession) =>
    browser.close().catch((error: unknown) => {
      log.warn({ runId, err: error }, 'closing the browser failed')
    })

  try {
    yield* stamp({
      type: 'run_started',
      task: prepared.template,
      model: runModelName,
      maxTurns,
      ...(prepared.startUrl ? { startUrl: prepared.startUrl } : {}),
      ...(Object.keys(prepared.variables).length > 0 ? { variables: prepared.variables } : {}),
    })

    const opening = openBrowser({ ...options, startUrl: prepared.startUrl }, runId, signal)
    try {
      session = await abortable(opening, signal)
    } catch (error) {
      // The session may still arrive after the abort (a factory that does not watch the signal
      // to the end): it must not outlive the run.
      lateSession = opening.then(
        (late) => (late?.owned ? closeSession(late.browser) : undefined),
        () => undefined,
      )
      if (signal.aborted || isAbortError(error))
        state = {
          type: 'done',
          reason: 'user_abort',
          result: { success: false, text: 'Aborted before the browser started.' },
        }
      else {
        const message = `The browser could not be started: ${describeError(error)}`
        yield* stamp({ type: 'error', message, retryable: false })
        state = { type: 'done', reason: 'error', result: { success: false, text: message } }
      }
    }

    const tools = buildToolRegistry(session?.browser.tools() ?? [], options)
    const subAgents = options.subAgents
    const outputSchema = agentOutputJsonSchema([...tools.values()])
    const visionLabels = typeof options.vision === 'object' && options.vision.labels === true
    const ctx: AgentContext = {
      runId,
      // The model reads the task with placeholders in place of any secret value it holds.
      task: scrub(prepared.task),
      ...(prepared.startUrl ? { startUrl: prepared.startUrl } : {}),
      ...(prepared.replay ? { replay: prepared.replay } : {}),
      model,
      maxTurns,
      ...(options.maxSessionTokens !== undefined ? { maxSessionTokens: options.maxSessionTokens } : {}),
      tools,
      policy: options.policy ?? [],
      ...(options.confirm ? { confirm: options.confirm } : {}),
      confirmationTimeoutMs: options.confirmationTimeoutMs ?? defaultConfirmationTimeoutMs,
      ...(options.askUser ? { askUser: options.askUser } : {}),
      ...(session ? { browser: session.browser } : {}),
      ...(canDispatch(subAgents)
        ? {
            subAgents: {
              max: subAgents.max,
              maxDepth: subAgents.maxDepth ?? 1,
              depth: subAgents.depth ?? 0,
              start: (spec, childSignal) =>
                runAgent(childRunOptions(options, spec, childSignal, session?.browser)),
            },
          }
        : {}),
      retry: { ...defaultRetry, ...options.retry },
      compaction: { thresholdTokens: 24_000, keepRecentSteps: 4, maxFailures: 3, ...options.compaction },
      ...(options.stuck === false ? {} : { stuck: (options.stuck ?? createStuckDetector)() }),
      maxInvalidOutputs: options.maxInvalidOutputs ?? 3,
      systemPrompt: buildSystemPrompt(tools.values(), options.instructions, {
        secrets: secrets.describe(),
        vision: Boolean(options.vision),
        labels: visionLabels,
      }),
      secrets,
      ...(options.screenshots ? { screenshots: options.screenshots } : {}),
      vision: Boolean(options.vision),
      visionLabels,
      price: findPrice(runModelName, options.prices ?? loadPriceTable()),
      signal,
      log,
      now,
      startStream: (prompt, streamSignal) =>
        startModelStream(model, prompt, outputSchema, streamSignal, scrub),
      run,
    }

    while (state.type !== 'done') {
      const from: AgentState = state
      let result: TransitionResult
      const attempt = transition(from, ctx)
      try {
        result = await abortable(attempt, signal)
      } catch (error) {
        if (signal.aborted || isAbortError(error)) {
          // The handler may still be settling (a tool honouring the signal): watched by release().
          lostTransition = { label: describeState(from), settled: attempt.catch(() => {}) }
          result = { next: { type: 'done', reason: 'user_abort', result: abortedResult(ctx) }, effects: [] }
        } else {
          const message = scrub(`Internal error in state ${from.type}: ${describeError(error)}`)
          log.error({ runId, err: error }, message)
          result = {
            next: { type: 'done', reason: 'error', result: { success: false, text: message } },
            effects: [{ type: 'error', message, retryable: false }],
          }
        }
      }
      for (const effect of result.effects) yield* stamp(effect)
      state = guard(result.next, ctx)
      if (state.type !== from.type) log.debug({ runId, from: from.type, to: state.type }, 'transition')
    }

    const warnings = await release()
    // What the children of an aborted dispatch said on their way out (their `done`s), now that they ended.
    for (const event of run.inFlight?.leftovers?.() ?? []) yield* stamp(event)
    for (const warning of warnings) yield* stamp(warning)
    const summary: RunSummary = {
      runId,
      reason: state.reason,
      result: state.result,
      usage: run.usage,
      costUsd: run.costUsd,
      steps: run.step,
      durationMs: now() - startedAt,
      ...(prepared.replay ? { replay: prepared.replay.stats } : {}),
    }
    finished = true
    yield* stamp({ type: 'done', ...summary })
    return summary
  } finally {
    // Reached without `finished` when the consumer called return() or a yield threw.
    if (!finished) await release()
  }
}

export function newRunRecord(): RunRecord {
  return {
    step: 0,
    history: [],
    notes: [],
    guidance: [],
    usage: { ...zeroUsage },
    costUsd: 0,
    consecutiveInvalidOutputs: 0,
    consecutiveObserveFailures: 0,
    failedActions: 0,
    waitedMs: 0,
    waitWarned: false,
    compactionFailures: 0,
  }
}

async function openBrowser(
  options: RunOptions,
  runId: string,
  signal: AbortSignal,
): Promise<{ browser: BrowserSession; owned: boolean } | undefined> {
  if (options.browser === null) return undefined
  const sessionOptions = {
    runId,
    ...(options.startUrl ? { startUrl: options.startUrl } : {}),
    ...(options.allowedDomains ? { allowedDomains: options.allowedDomains } : {}),
    ...(options.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
    ...(options.maxDownloadBytes !== undefined ? { maxDownloadBytes: options.maxDownloadBytes } : {}),
  }
  if (typeof options.browser === 'function') {
    return { browser: await options.browser(sessionOptions, signal), owned: true }
  }
  if (options.browser) return { browser: options.browser, owned: false }
  // Loaded on demand so that callers bringing their own session never load Playwright.
  const { openStandaloneSession } = await import('../browser/session/launcher.ts')
  return { browser: await openStandaloneSession(sessionOptions, signal), owned: true }
}

/** A child's event (stamped already, with its parent) rather than this run's draft. */
function isForwarded(effect: Effect): effect is ForwardedEvent {
  return 'parentRunId' in effect && effect.parentRunId !== undefined
}

function describeState(state: AgentState): string {
  if (state.type === 'executing' && state.phase !== 'start') return `The ${state.call.tool} action`
  if (state.type === 'confirming') return `The confirmation of ${state.call.tool}`
  return `The ${state.type} step`
}

function abortedResult(ctx: AgentContext) {
  return { success: false, text: `Aborted at step ${ctx.run.step}. ${lastMemory(ctx)}`.trim() }
}

function lastMemory(ctx: AgentContext): string {
  const memory = ctx.run.history.findLast((record) => record.output?.memory)?.output?.memory
  return memory ? `Last memory: ${memory}` : ''
}

function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return model
  return `${model.provider}/${model.modelId}`
}

export { AbortError }
