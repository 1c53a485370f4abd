import type { LanguageModel } from 'ai'
import type { ArtifactSettings } from '../../browser/session/artifacts/artifact-settings.ts'
import type { Recording } from '../../recording/schema.ts'
import type { HandoverDesk } from '../handover/handover-desk.ts'
import type { RunProfiles } from './profile-save.ts'
import type { RunOptions } from './run-options.ts'
import type { RunRequest, RunRequestField } from './run-request-fields.ts'

/**
 * The one place a run request becomes RunOptions: the server (HTTP and MCP),
 * the CLI and evals all call runOptionsFor, so a request field added to the
 * schema (run-request-fields.ts) is mapped here once and reaches every surface.
 */

/** What the caller settles that a request only names, and the defaults for what it leaves out. */
export interface RunDefaults {
  /** The model the request's `model` (or the caller's default) resolved to; absent: a replay without one. */
  model?: { name: string; model: LanguageModel }
  /** The recording a request's `replay` names (a run's id is resolved by the caller). */
  replay?: Recording
  /** How long a replay waits for a recorded element or expectation (SEXTANT_REPLAY_WAIT_MS); absent: 8 s. */
  replayWaitMs?: number
  /** Steps when the request sets none (SEXTANT_MAX_TURNS). */
  maxTurns?: number
  /** The wall-clock bound when the request sets none (SEXTANT_MAX_RUN_MS). */
  maxDurationMs?: number
  /** Whether the model sees screenshots when the request does not say (SEXTANT_VISION). */
  vision?: boolean
  /** Where profiles are kept; a request naming one needs it. */
  profiles?: RunProfiles
  /**
   * Makes the run's handover desk when the request lets a person in; absent:
   * nobody can reach the run (stdio MCP, an eval), so it gets none whatever it says.
   */
  handover?: () => HandoverDesk
  /**
   * The artifacts a run keeps when its request names none (SEXTANT_ARTIFACTS). A video in them is left out
   * for a run with secrets, which a request asking for one is refused.
   */
  artifacts?: ArtifactSettings
}

/**
 * Fields that are no run option, each with where it goes instead; every
 * other field of the schema is mapped by runOptionsFor.
 */
export const notRunOptions: Readonly<Partial<Record<RunRequestField, string>>> = {
  model: "resolved by the caller (its provider's settings and key) and given as RunDefaults.model",
  priority: "the shared queue's order (server/runs/run-admission.ts)",
  queueTimeoutMs: "the shared queue's wait (server/runs/run-admission.ts)",
  webhook:
    "a URL the server (server/runs/, with SEXTANT_WEBHOOK_SECRET) or the eval signs and delivers to; RunOptions.webhook is the library's own delivery, with its secret",
}

/** The RunOptions a request asks for, over the caller's defaults; the caller adds its own parts (browser, callbacks, log). */
export function runOptionsFor(request: RunRequest, defaults: RunDefaults = {}): RunOptions {
  const replay = defaults.replay ?? (typeof request.replay === 'object' ? request.replay : undefined)
  if (typeof request.replay === 'string' && !defaults.replay)
    throw new TypeError(
      `The request replays run ${request.replay}: its recording must be given as defaults.replay.`,
    )
  const maxTurns = request.maxTurns ?? defaults.maxTurns
  const maxDurationMs = request.maxDurationMs ?? defaults.maxDurationMs
  const vision = request.vision ?? defaults.vision
  const handover = request.handover === false ? undefined : defaults.handover?.()
  const artifacts = request.artifacts ?? defaultArtifacts(defaults.artifacts, request)
  return {
    ...(request.task === undefined ? {} : { task: request.task }),
    ...(defaults.model ? { model: defaults.model.model, modelName: defaults.model.name } : {}),
    ...(replay ? { replay } : {}),
    ...(replay && defaults.replayWaitMs !== undefined ? { replayWaitMs: defaults.replayWaitMs } : {}),
    ...(request.variables === undefined ? {} : { variables: request.variables }),
    ...(request.startUrl === undefined ? {} : { startUrl: request.startUrl }),
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
    ...(request.output === undefined ? {} : { output: request.output }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(request.maxSessionTokens === undefined ? {} : { maxSessionTokens: request.maxSessionTokens }),
    ...(request.maxCostUsd === undefined ? {} : { maxCostUsd: request.maxCostUsd }),
    ...(maxDurationMs === undefined ? {} : { maxDurationMs }),
    ...(request.allowedDomains === undefined ? {} : { allowedDomains: request.allowedDomains }),
    ...(request.profile === undefined
      ? {}
      : {
          profile: request.profile,
          profileSave: request.profileSave ?? 'success',
          ...(defaults.profiles ? { profiles: defaults.profiles } : {}),
        }),
    ...(handover ? { handover } : {}),
    ...(request.proxy === undefined ? {} : { proxy: request.proxy }),
    ...(request.browser === undefined ? {} : { browserContext: request.browser }),
    ...(artifacts === undefined ? {} : { artifacts }),
    ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
    ...(request.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
    ...(request.secrets === undefined ? {} : { secrets: request.secrets }),
    ...(vision === undefined ? {} : { vision }),
    ...(request.subAgents === undefined ? {} : { subAgents: request.subAgents }),
  }
}

function defaultArtifacts(
  artifacts: ArtifactSettings | undefined,
  request: RunRequest,
): ArtifactSettings | undefined {
  const secrets = request.secrets !== undefined && Object.keys(request.secrets).length > 0
  if (!artifacts?.video || !secrets) return artifacts
  const { video: _left, ...rest } = artifacts
  return rest
}
