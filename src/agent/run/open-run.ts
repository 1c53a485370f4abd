import type { LanguageModel } from 'ai'
import { proxyCredentials } from '../../browser/network/upstream-proxy.ts'
import {
  ArtifactsError,
  refuseUnscrubbableArtifacts,
  wantsArtifacts,
} from '../../browser/session/artifacts/artifact-settings.ts'
import { contextCredentials, recordedContext } from '../../browser/session/context-settings.ts'
import { defaultMaxEventBytes } from '../../events/event-cap.ts'
import type { AgentEvent, EventDraft } from '../../events/events.ts'
import { newRunId } from '../../events/run-id.ts'
import { statusForReason } from '../../events/run-status.ts'
import { scrubbingLogger, silentLogger } from '../../log.ts'
import { RunSecrets } from '../../secrets/secrets.ts'
import { runWebhookObserver } from '../../webhooks/run-webhook.ts'
import { noModel } from '../model-calls/no-model.ts'
import { resolveOutput } from '../output/output-schema.ts'
import { prepareRun, type SettledRun } from '../replay/replay-setup.ts'
import { applyUpdate } from './apply-update.ts'
import { buildContext, type ContextSources } from './build-context.ts'
import { eventStamper } from './event-stamper.ts'
import { typesSecrets } from './open-browser.ts'
import type { AgentContext } from './run-context.ts'
import { armDeadline } from './run-limits.ts'
import type { RunOptions, RunSummary } from './run-options.ts'
import type { DoneState, Effect } from './run-state.ts'

export const defaultMaxTurns = 40
/** How long a tool that ignores the abort may keep running before a warning names it. */
const defaultAbortDeadlineMs = 3_000

/** A run, opened: its context, how its events are made, and what closing it needs. */
export interface OpenedRun {
  ctx: AgentContext
  /** Scrubs, caps and stamps a draft (see eventStamper). */
  stamp: (draft: Effect) => AgentEvent[]
  runStarted: EventDraft
  /** Aborts the run's own signal: every model call, tool and wait of the run watches it. */
  controller: AbortController
  abortDeadlineMs: number
  summarize: (done: DoneState) => RunSummary
  /** Stops listening to the caller's signal. */
  unlink: () => void
}

/**
 * Everything a run needs before its first transition, from its options (and
 * what its caller already settled of them, not settled twice). Throws
 * (ReplayError, SecretsError, OutputSchemaError, RunLimitError, TypeError) before anything
 * is yielded when the options cannot make a run: a replay without a value it
 * needs, secrets it could not scrub, an unusable output schema, neither model
 * nor recording, a dollar cap on a model without a price.
 */
export function openRun(
  options: RunOptions,
  runChild: ContextSources['runChild'],
  settled?: SettledRun,
): OpenedRun {
  const now = options.now ?? Date.now
  const runId = options.runId ?? newRunId(now())
  const startedAt = now()
  if (!options.model && !options.replay)
    throw new TypeError('runAgent needs a model, or a recording to replay.')
  refuseArtifacts(options)
  const prepared = settled?.prepared ?? prepareRun({ ...options, canHeal: options.model !== undefined })
  const model = options.model ?? noModel()
  const secrets =
    settled?.secrets ??
    RunSecrets.from(options.secrets, [
      ...proxyCredentials(options.proxy),
      ...contextCredentials(options.browserContext),
    ])
  // A replay of a run that had an output schema fills it again (one model call on the final page).
  const outputSchema = options.output ?? options.replay?.output
  const output = outputSchema === undefined ? undefined : resolveOutput(outputSchema)
  const baseLog = options.log ?? silentLogger()
  const log = secrets.isEmpty ? baseLog : scrubbingLogger(baseLog, (text) => secrets.scrub(text))
  const controller = new AbortController()
  const name = options.modelName ?? modelName(model)
  const onCallerAbort = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) controller.abort(options.signal.reason)
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true })
  const maxTurns = options.maxTurns ?? defaultMaxTurns
  // Before anything starts: a refused webhook URL refuses the run. A run kept off private networks keeps its webhook off them too.
  const webhookSettings = options.webhook && {
    ...options.webhook,
    ...(options.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
  }
  const webhook =
    webhookSettings && runWebhookObserver(webhookSettings, runId, (done) => statusForReason(done.reason), log)
  const disarm = armDeadline(controller, options.maxDurationMs)
  const ctx = buildContext({
    ...{ options, prepared, runId, model, modelName: name, maxTurns, startedAt, secrets, log, now, runChild },
    ...(output ? { output } : {}),
    signal: controller.signal,
  })
  const stamper = eventStamper({
    runId,
    secrets,
    maxEventBytes: options.maxEventBytes ?? defaultMaxEventBytes,
    now,
    onCut: (note) => applyUpdate(ctx, { run: { notes: [...ctx.run.notes, note] } }),
  })
  return {
    ctx,
    // The webhook watches the events as the caller gets them: stamped, so scrubbed of secrets.
    stamp: webhook
      ? (draft) => {
          const events = stamper(draft)
          for (const event of events) webhook(event)
          return events
        }
      : stamper,
    runStarted: {
      type: 'run_started',
      task: prepared.template,
      model: name,
      maxTurns,
      ...(prepared.startUrl ? { startUrl: prepared.startUrl } : {}),
      ...(prepared.instructions === undefined ? {} : { instructions: prepared.instructions }),
      ...(prepared.browserContext ? { browser: recordedContext(prepared.browserContext) } : {}),
      ...(Object.keys(prepared.variables).length > 0 ? { variables: prepared.variables } : {}),
      ...(output ? { output: output.jsonSchema } : {}),
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(secrets.isEmpty ? {} : { secrets: secrets.describe().map(({ name }) => name) }),
    },
    controller,
    abortDeadlineMs: options.abortDeadlineMs ?? defaultAbortDeadlineMs,
    summarize: (done) => ({
      runId,
      reason: done.reason,
      // The summary runAgent returns is no event, so the stamper never sees it: scrubbed here.
      result: secrets.scrubDeep(done.result),
      usage: ctx.run.usage,
      costUsd: ctx.run.costUsd,
      steps: ctx.run.step,
      durationMs: now() - startedAt,
      ...(ctx.replay ? { replay: ctx.replay.stats } : {}),
    }),
    unlink: () => {
      disarm()
      options.signal?.removeEventListener('abort', onCallerAbort)
    },
  }
}

function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return model
  return `${model.provider}/${model.modelId}`
}

/** Artifacts the run could not keep, or not keep clean, are refused before it starts. */
function refuseArtifacts(options: RunOptions): void {
  refuseUnscrubbableArtifacts(options.artifacts, typesSecrets(options))
  if (wantsArtifacts(options.artifacts) && !options.artifactStore)
    throw new ArtifactsError(
      'artifacts need a place to be kept: give the run an artifactStore (folderArtifacts(dir) keeps them in <dir>/<runId>/artifacts/).',
    )
}
