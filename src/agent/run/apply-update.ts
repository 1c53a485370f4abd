import { zeroUsage } from '../../events/usage.ts'
import type { AgentContext, RunRecord, RunUpdate } from './run-context.ts'
import type { StepRecord } from './step-record.ts'

export function newRunRecord(): RunRecord {
  return {
    step: 0,
    history: [],
    notes: [],
    guidance: [],
    usage: { ...zeroUsage },
    costUsd: 0,
    consecutiveInvalidOutputs: 0,
    rejectedData: 0,
    consecutiveObserveFailures: 0,
    browserRestarts: 0,
    modelHandovers: 0,
    failedActions: 0,
    waitedMs: 0,
    waitWarned: false,
    contextWarned: false,
    warnedLimits: [],
    compactionFailures: 0,
  }
}

/**
 * The one place a transition's bookkeeping lands in the run: the record and
 * the replay's cursor take the new values the handler computed, and a browser
 * the opening or restarting_browser state brought equips the context (its
 * tools and prompt).
 */
export function applyUpdate(ctx: AgentContext, update: RunUpdate | undefined): void {
  if (!update) return
  if (update.run) ctx.run = { ...ctx.run, ...update.run }
  if (update.replay && ctx.replay) ctx.replay = { ...ctx.replay, ...update.replay }
  if (update.browser) {
    ctx.run = { ...ctx.run, browser: update.browser }
    if (ctx.browserSetup) Object.assign(ctx, ctx.browserSetup.equip(update.browser.browser))
  }
}

/** The history with the current step's record (the last one) changed; the records themselves are never edited in place. */
export function withCurrentStep(history: StepRecord[], change: Partial<StepRecord>): StepRecord[] {
  const current = history.at(-1)
  if (!current) return history
  return [...history.slice(0, -1), { ...current, ...change }]
}
