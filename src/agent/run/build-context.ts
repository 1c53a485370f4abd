import type { LanguageModel } from 'ai'
import type { BrowserSession } from '../../browser/browser-session.ts'
import { wantsArtifacts } from '../../browser/session/artifacts/artifact-settings.ts'
import type { AgentEvent } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import { findPrice, loadPriceTable } from '../../model/prices.ts'
import type { RunSecrets } from '../../secrets/secrets.ts'
import { startModelStream } from '../model-calls/model-stream.ts'
import { defaultRetry } from '../model-calls/retry.ts'
import { agentOutputJsonSchema } from '../output/output.ts'
import type { ResolvedOutput } from '../output/output-schema.ts'
import { buildSystemPrompt } from '../prompt/system-prompt.ts'
import type { PreparedRun } from '../replay/replay-setup.ts'
import { createStuckDetector } from '../stuck/stuck-monitor.ts'
import { canDispatch, childRunOptions } from '../sub-agents/child-options.ts'
import { buildToolRegistry } from '../tools/registry.ts'
import { newRunRecord } from './apply-update.ts'
import { closeBrowser, openBrowser } from './open-browser.ts'
import { defaultMaxArtifactBytes, keepArtifacts } from './run-artifacts.ts'
import type { AgentContext, BrowserParts, BrowserSetup } from './run-context.ts'
import { refuseUnkeepableLimits } from './run-limits.ts'
import type { RunOptions, RunSummary } from './run-options.ts'
import { runProfile } from './run-profile.ts'

const defaultConfirmationTimeoutMs = 120_000

export interface ContextSources {
  options: RunOptions
  prepared: PreparedRun
  runId: string
  model: LanguageModel
  modelName: string
  maxTurns: number
  /** When the run started (`now()`). */
  startedAt: number
  secrets: RunSecrets
  /** The run's output schema, resolved (RunOptions.output). */
  output?: ResolvedOutput
  signal: AbortSignal
  log: Logger
  now: () => number
  /** Runs a child (runAgent itself: passed in, so this module does not import the loop). */
  runChild: (options: RunOptions) => AsyncGenerator<AgentEvent, RunSummary, undefined>
}

/** The context every handler of one run receives, from the run's options; its browser parts follow the opening state. */
export function buildContext(sources: ContextSources): AgentContext {
  const { options, prepared, runId, model, secrets, signal, log } = sources
  const subAgents = options.subAgents
  const browserSetup = setupBrowser(sources)
  const price = findPrice(sources.modelName, options.prices ?? loadPriceTable())
  // A dollar cap on a model whose cost cannot be counted would never stop it (a replay without a model costs nothing).
  if (options.model) refuseUnkeepableLimits(options, sources.modelName, price)
  const ctx: AgentContext = {
    runId,
    // The model reads the task with placeholders in place of any secret value it holds.
    task: secrets.scrub(prepared.task),
    ...(prepared.startUrl ? { startUrl: prepared.startUrl } : {}),
    ...(prepared.replay ? { replay: prepared.replay } : {}),
    ...(options.replayWaitMs !== undefined ? { replayWaitMs: options.replayWaitMs } : {}),
    model,
    maxTurns: sources.maxTurns,
    ...(options.maxSessionTokens !== undefined ? { maxSessionTokens: options.maxSessionTokens } : {}),
    ...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}),
    ...(options.maxDurationMs !== undefined ? { maxDurationMs: options.maxDurationMs } : {}),
    startedAt: sources.startedAt,
    ...browserSetup.equip(undefined),
    policy: options.policy ?? [],
    ...(options.confirm ? { confirm: options.confirm } : {}),
    confirmationTimeoutMs: options.confirmationTimeoutMs ?? defaultConfirmationTimeoutMs,
    ...(options.askUser ? { askUser: options.askUser } : {}),
    ...(options.handover ? { handover: options.handover } : {}),
    ...(canDispatch(subAgents)
      ? {
          subAgents: {
            max: subAgents.max,
            maxDepth: subAgents.maxDepth ?? 1,
            depth: subAgents.depth ?? 0,
            // Read when a child starts: by then the opening state has set the run's browser.
            start: (spec, childSignal) =>
              sources.runChild(childRunOptions(options, spec, childSignal, ctx.browser)),
          },
        }
      : {}),
    retry: { ...defaultRetry, ...options.retry },
    compaction: { thresholdTokens: 24_000, keepRecentSteps: 4, maxFailures: 3, ...options.compaction },
    ...(options.stuck === false ? {} : { stuck: (options.stuck ?? createStuckDetector)() }),
    maxInvalidOutputs: options.maxInvalidOutputs ?? 3,
    ...(sources.output ? { output: sources.output } : {}),
    secrets,
    ...(options.screenshots ? { screenshots: options.screenshots } : {}),
    vision: Boolean(options.vision),
    visionLabels: visionLabels(options),
    ...(price ? { price } : {}),
    signal,
    log,
    now: sources.now,
    run: newRunRecord(),
    browserSetup,
  }
  return ctx
}

function setupBrowser(sources: ContextSources): BrowserSetup {
  const { options, prepared, runId, model, secrets, log } = sources
  const scrub = (text: string) => secrets.scrub(text)
  const profile = runProfile(options, runId, log)
  const store = options.artifactStore
  return {
    open: async (signal, startUrl = prepared.startUrl) =>
      openBrowser(
        {
          ...options,
          startUrl,
          ...(prepared.browserContext ? { browserContext: prepared.browserContext } : {}),
        },
        runId,
        signal,
        await profile?.load(),
      ),
    equip: (browser): BrowserParts => {
      if (browser) options.onBrowser?.(browser)
      const tools = buildToolRegistry(browser?.tools() ?? [], options, sources.output)
      const outputSchema = agentOutputJsonSchema([...tools.values()])
      return {
        ...(browser ? { browser } : {}),
        tools,
        systemPrompt: buildSystemPrompt(tools.values(), prepared.instructions, {
          secrets: secrets.describe(),
          vision: Boolean(options.vision),
          labels: visionLabels(options),
        }),
        startStream: (prompt, streamSignal) =>
          startModelStream(model, prompt, outputSchema, streamSignal, scrub),
      }
    },
    release: () => options.onBrowser?.(undefined),
    close: (browser) => closeBrowser(browser, log, runId),
    ...(profile ? { saveProfile: profile.save } : {}),
    ...(store && wantsArtifacts(options.artifacts)
      ? {
          keepArtifacts: (browser: BrowserSession) =>
            keepArtifacts(browser, {
              runId,
              secrets,
              store,
              maxBytes: options.maxArtifactBytes ?? defaultMaxArtifactBytes,
              log,
            }),
        }
      : {}),
  }
}

function visionLabels(options: RunOptions): boolean {
  return typeof options.vision === 'object' && options.vision.labels === true
}
