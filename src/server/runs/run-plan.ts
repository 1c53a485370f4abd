import { type PreparedRun, prepareRun, ReplayError } from '../../agent/replay/replay-setup.ts'
import { refuseUnkeepableLimits } from '../../agent/run/run-limits.ts'
import { proxyCredentials } from '../../browser/network/upstream-proxy.ts'
import { contextCredentials } from '../../browser/session/context-settings.ts'
import type { AgentEvent } from '../../events/events.ts'
import { newRunId } from '../../events/run-id.ts'
import { findPrice, loadPriceTable, type PriceTable } from '../../model/prices.ts'
import type { ResolvedModel } from '../../model/resolve.ts'
import { recordingOf } from '../../recording/from-events.ts'
import type { Recording } from '../../recording/schema.ts'
import { RunSecrets } from '../../secrets/secrets.ts'
import type { StoredRun } from '../../store/run-store.ts'
import type { RunRequest } from '../http/schemas.ts'
import type { LiveRunInfo } from './live-run.ts'

/** What a request runs, settled before it starts (see planRun), and handed to the run as it is. */
export interface RunPlan {
  model?: ResolvedModel
  replay?: Recording
  prepared: PreparedRun
  /** The request's secrets (its proxy's credentials among them), read once: the record, the log and the run scrub with them. */
  secrets: RunSecrets
}

export interface PlanSources {
  /** "provider/model" (or the default) → model; throws ModelConfigError. */
  resolveModel(name: string | undefined): ResolvedModel
  /** A run's events (a replay may name a run); undefined when there is no such run. */
  events(runId: string): Promise<AgentEvent[] | undefined>
  /** The runs' prices (default: the shipped table): a dollar cap needs the model's. */
  prices?: PriceTable
}

/**
 * What a request runs: its model (none for a replay that cannot heal), its
 * recording, its task filled in. Throws ModelConfigError, ReplayError (a
 * variable without a value), SecretsError or RunLimitError (a dollar cap on
 * a model without a price) before anything starts.
 */
export async function planRun(request: RunRequest, sources: PlanSources): Promise<RunPlan> {
  const replay = await recordingFor(request.replay, sources)
  // A replay needs no model: without one it cannot heal, and says so where it would have to.
  const model = replay ? modelForReplay(request.model, sources) : sources.resolveModel(request.model)
  if (model)
    refuseUnkeepableLimits(request, model.name, findPrice(model.name, sources.prices ?? loadPriceTable()))
  const prepared = prepareRun({
    ...request,
    browserContext: request.browser,
    replay,
    canHeal: model !== undefined,
  })
  const secrets = RunSecrets.from(request.secrets, [
    ...proxyCredentials(request.proxy),
    ...contextCredentials(request.browser),
  ])
  return { ...(model ? { model } : {}), ...(replay ? { replay } : {}), prepared, secrets }
}

/** The run's record: its task with secret values replaced by placeholders, for the store, the log and every view. */
/** `request` gives what the record keeps of it beside the plan: the webhook its end is told to. */
export function newRunInfo(plan: RunPlan, request: Pick<RunRequest, 'webhook'> = {}): LiveRunInfo {
  const { startUrl } = plan.prepared
  return {
    id: newRunId(),
    task: plan.secrets.scrub(plan.prepared.template),
    model: plan.model?.name ?? 'none',
    ...(startUrl === undefined ? {} : { startUrl }),
    createdAt: new Date().toISOString(),
    ...(request.webhook === undefined ? {} : { webhook: request.webhook }),
  }
}

/** The record of a run stored before it starts here (a queued run this server claimed). */
export function storedRunInfo(stored: StoredRun): LiveRunInfo {
  return {
    id: stored.id,
    task: stored.task,
    model: stored.model,
    ...(stored.startUrl === undefined ? {} : { startUrl: stored.startUrl }),
    createdAt: stored.createdAt,
  }
}

/** The recording a request replays: its own, or the one of the run it names. */
async function recordingFor(
  replay: RunRequest['replay'],
  sources: PlanSources,
): Promise<Recording | undefined> {
  if (replay === undefined || typeof replay === 'object') return replay
  const events = await sources.events(replay)
  if (!events) throw new ReplayError(`"replay" names no run: no run with id "${replay}".`)
  return recordingOf(events)
}

function modelForReplay(name: string | undefined, sources: PlanSources): ResolvedModel | undefined {
  try {
    return sources.resolveModel(name)
  } catch (error) {
    // Asked for by name, a model that does not resolve is the caller's mistake; the default's absence is not.
    if (name !== undefined) throw error
    return undefined
  }
}
