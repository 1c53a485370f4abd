import { replayWaitMs } from '../../browser/view/durable-targets.ts'
import { ElementTargetSchema } from '../../events/call-schemas.ts'
import type { EventDraft } from '../../events/events.ts'
import type { ElementTarget, RecordedStep } from '../../recording/schema.ts'
import { fillDeep } from '../../recording/variables.ts'
import { sleep } from '../../tool.ts'
import { type PointCall, replayPoints } from '../replay/replay-points.ts'
import type { AgentContext, ReplayProgress, RunUpdate, TransitionResult } from '../run/run-context.ts'
import type { ReplayingState } from '../run/run-state.ts'
import { handOverToolName } from '../tools/hand-over.ts'

/**
 * Produces the next call from the recording instead of from a model. The
 * `check` phase checks what the last replayed step should have achieved and
 * picks the next step; the `step` phase finds that step's element on the page
 * by its durable target and hands the call to `executing` like any other.
 * Where the page no longer allows a step, the model redoes it (`thinking`)
 * when there is one; without one the run ends with `error`, naming the step.
 */
export async function replaying(state: ReplayingState, ctx: AgentContext): Promise<TransitionResult> {
  if (!ctx.replay) throw new Error('The replaying state needs a recording.')
  // The cursor as this transition leaves it: moved here, applied by the loop (update.replay).
  const replay: ReplayProgress = { ...ctx.replay, stats: { ...ctx.replay.stats } }
  return state.phase === 'check' ? checkAndPick(ctx, replay) : replayStep(ctx, replay, state.index)
}

/** The last replayed step's check, then the next step to replay (or the replay's end). */
async function checkAndPick(ctx: AgentContext, replay: ReplayProgress): Promise<TransitionResult> {
  const effects: EventDraft[] = []
  if (replay.pending !== undefined) {
    const index = replay.pending
    replay.pending = undefined
    const problem = await lastStepProblem(ctx, replay, index)
    if (problem) return cannotReplay(ctx, replay, index, problem, effects)
  }

  if (replay.healing) {
    // The model has acted when its call went through; then the recording resumes once its next element is there.
    const acted = ctx.run.history.at(-1)?.result?.ok === true
    const after = nextStep(replay.steps, replay.healing.index + 1)
    const resumable =
      acted && (after === undefined || (await resolves(ctx, replay, after.step)) === undefined)
    if (!resumable) return toModel(ctx, replay, effects)
    replay.stats.healed++
    replay.healing = undefined
    replay.next = after?.index ?? replay.steps.length
  }

  const next = nextStep(replay.steps, replay.next)
  // The recorded data was the recorded page's: the data is read again off this page instead of replaying done.
  if (ctx.output && (!next || next.step.tool === 'done'))
    return { next: { type: 'extracting' }, effects, update: { replay: cursor(replay) } }
  if (!next) {
    const text = `Replayed the recording (${replay.stats.replayed} steps); it has no final result.`
    return {
      next: { type: 'done', reason: 'model_stop', result: { success: true, text } },
      effects,
      update: { replay: cursor(replay) },
    }
  }
  return {
    next: { type: 'replaying', phase: 'step', index: next.index },
    effects,
    update: { replay: cursor(replay) },
  }
}

/** One recorded step as a call of a new step of the run: its element found, its goal as the reflection. */
async function replayStep(
  ctx: AgentContext,
  replay: ReplayProgress,
  index: number,
): Promise<TransitionResult> {
  const effects: EventDraft[] = []
  const step = replay.steps[index]
  if (!step) throw new Error(`The recording has no step ${index + 1}.`)
  // A person did this step; with nobody to take over, neither a replay nor a model can redo it.
  if (step.tool === handOverToolName && !ctx.handover) {
    const text = `The replay stopped at ${stepName(step, index, replay)}: it needs a person, and no person can take over in this run.`
    effects.push({ type: 'error', message: text, retryable: false })
    return {
      next: { type: 'done', reason: 'error', result: { success: false, text } },
      effects,
      update: { replay: cursor(replay) },
    }
  }
  const target = step.target ? fillDeep(step.target, replay.values) : undefined
  let ref: string | undefined
  if (target) {
    const found = await find(ctx, target)
    if (!found.ok) return cannotReplay(ctx, replay, index, found.reason, effects)
    ref = found.ref
  }
  const recordedDrop =
    step.tool === 'drag' ? dropTargetOf(step.input.to) : step.drop ? step.drop.target : undefined
  const dropTarget = recordedDrop ? fillDeep(recordedDrop, replay.values) : undefined
  let dropRef: string | undefined
  if (dropTarget && step.tool === 'drag') {
    const found = await find(ctx, dropTarget)
    if (!found.ok) return cannotReplay(ctx, replay, index, found.reason, effects)
    dropRef = found.ref
  }

  // No page view is built: nobody reads it. The target's lookup waits for the page instead.
  const stepNumber = ctx.run.step + 1
  effects.push({ type: 'step_started', step: stepNumber, maxTurns: ctx.maxTurns })
  let input = callInput(step, replay, step.offset ? undefined : ref)
  if (dropRef !== undefined) input.to = dropRef
  let pointCall: PointCall['extra'] = {}
  if (step.offset && ref !== undefined) {
    const placed = await replayPoints(step, input, ref, dropTarget, ctx.browser, (drop) => find(ctx, drop))
    if (typeof placed === 'string') return cannotReplay(ctx, replay, index, placed, effects)
    input = placed.input
    pointCall = placed.extra
  }
  const goal = fillDeep(step.goal ?? '', replay.values)
  // The model's reflection fields, as the recording had them: a recording made from this run keeps its goals.
  const output = {
    evaluation_previous_goal: '',
    memory: '',
    next_goal: goal,
    action: { tool: step.tool, input },
  }
  const history = [...ctx.run.history, { step: stepNumber, url: '', fingerprint: '', output }]
  effects.push({ type: 'reflection', evaluation_previous_goal: '', memory: '', next_goal: goal })
  replay.pending = index
  replay.next = index + 1
  replay.stats.replayed++
  return {
    next: {
      type: 'executing',
      phase: 'start',
      queue: [
        {
          callId: `call_${stepNumber}`,
          tool: step.tool,
          input,
          source: 'replay',
          ...(target ? { target } : {}),
          ...(dropTarget ? { dropTarget } : {}),
          ...pointCall,
        },
      ],
    },
    effects,
    update: { run: { step: stepNumber, history, notes: [] }, replay: cursor(replay) },
  }
}

/** The replay's cursor, for the update: where it is, what it checks next, what it heals, its tally. */
function cursor(replay: ReplayProgress): RunUpdate['replay'] {
  const { next, pending, healing, stats } = replay
  return { next, pending, healing, stats }
}

/** The next step a replay runs, from `from` on: skipped (failed or undone) steps are passed over. */
function nextStep(steps: RecordedStep[], from: number): { step: RecordedStep; index: number } | undefined {
  for (let index = from; index < steps.length; index++) {
    const step = steps[index]
    if (step && step.skip === undefined) return { step, index }
  }
  return undefined
}

function callInput(
  step: RecordedStep,
  replay: ReplayProgress,
  ref: string | undefined,
): Record<string, unknown> {
  const input = fillDeep(step.input, replay.values)
  if (typeof input.url === 'string') input.url = replay.rebase(input.url)
  return ref === undefined ? input : { ...input, ref }
}

async function find(
  ctx: AgentContext,
  target: ElementTarget,
): Promise<{ ok: true; ref: string } | { ok: false; reason: string }> {
  const recording = ctx.browser?.recording
  if (!recording) return { ok: false, reason: 'this run has no browser that can find recorded elements' }
  // An element not there yet may be on its way (the page still rendering what the last step set off).
  const deadline = performance.now() + (ctx.replayWaitMs ?? replayWaitMs)
  for (;;) {
    const match = await recording.findTarget(target, ctx.signal)
    if (match.ok) return match
    if (!match.missing || performance.now() >= deadline) return { ok: false, reason: match.reason }
    await sleep(150, ctx.signal)
  }
}

/** Why a recorded step's target cannot be found now; undefined when it can (or it has none). */
async function resolves(
  ctx: AgentContext,
  replay: ReplayProgress,
  step: RecordedStep,
): Promise<string | undefined> {
  if (!step.target) return undefined
  const found = await find(ctx, fillDeep(step.target, replay.values))
  return found.ok ? undefined : found.reason
}

/** The replayed call failed, or what it should have achieved is not there. */
async function lastStepProblem(
  ctx: AgentContext,
  replay: ReplayProgress,
  index: number,
): Promise<string | undefined> {
  const result = ctx.run.history.at(-1)?.result
  if (result && !result.ok) return result.text
  const step = replay.steps[index]
  const recording = ctx.browser?.recording
  if (!step?.expect || !recording) return undefined
  const target = step.target ? fillDeep(step.target, replay.values) : undefined
  for (const expectation of step.expect) {
    const wanted = fillDeep(expectation, replay.values)
    if (wanted.kind === 'url') wanted.url = replay.rebase(wanted.url)
    const problem = await recording.checkExpectation(wanted, target, ctx.signal, ctx.replayWaitMs)
    if (problem) return problem
  }
  return undefined
}

/** Heals through the model when there is one; else ends the run naming the step and what was missing. */
function cannotReplay(
  ctx: AgentContext,
  replay: ReplayProgress,
  index: number,
  reason: string,
  effects: EventDraft[],
): TransitionResult {
  const step = replay.steps[index]
  const name = stepName(step, index, replay)
  if (!replay.canHeal) {
    const text = `The replay failed at ${name}: ${reason} No model is configured to redo the step.`
    effects.push({ type: 'error', message: text, retryable: false })
    return {
      next: { type: 'done', reason: 'error', result: { success: false, text } },
      effects,
      update: { replay: cursor(replay) },
    }
  }
  replay.healing = { index, reason }
  effects.push({
    type: 'warning',
    code: 'replay_healing',
    message: `${name} could not be replayed (${reason}); the model redoes it.`,
  })
  return toModel(ctx, replay, effects)
}

/** One more model step for the step being healed, with the recording's goal and the rest of its plan as guidance. */
function toModel(ctx: AgentContext, replay: ReplayProgress, effects: EventDraft[]): TransitionResult {
  const healing = replay.healing
  if (!healing) throw new Error('Healing without a step to heal.')
  const step = replay.steps[healing.index]
  const rest = replay.steps
    .slice(healing.index + 1)
    .filter((later) => later.skip === undefined)
    .map((later, n) => `${n + 1}. ${fillDeep(later.goal ?? describeCall(later), replay.values)}`)
  const note = [
    `You are replaying a recording of this task, and the page has changed: recorded ${stepName(step, healing.index, replay)} could not be done as recorded (${healing.reason}).`,
    `Do that step yourself now${step?.goal ? `: ${fillDeep(step.goal, replay.values)}` : '.'}`,
    'Then stop acting: the recording continues on its own with the rest of its plan:',
    ...rest,
  ].join('\n')
  replay.stats.modelSteps++
  return {
    next: { type: 'thinking' },
    effects,
    update: { run: { notes: [...ctx.run.notes, note] }, replay: cursor(replay) },
  }
}

function stepName(step: RecordedStep | undefined, index: number, replay: ReplayProgress): string {
  if (!step) return `step ${index + 1}`
  return `step ${index + 1} (${fillDeep(describeCall(step), replay.values)})`
}

/** `click button 'Clear completed'`, `type "Buy milk"`: how a step is named when it has no goal. */
function describeCall(step: RecordedStep): string {
  const target = step.target
  const on = target ? ` ${target.role}${target.name ? ` '${target.name}'` : ''}` : ''
  const text = typeof step.input.text === 'string' ? ` "${step.input.text}"` : ''
  const url = typeof step.input.url === 'string' ? ` ${step.input.url}` : ''
  const reason = typeof step.input.reason === 'string' ? `: ${step.input.reason}` : ''
  return `${step.tool}${on}${text}${url}${reason}`
}

/** A drag's recorded drop element: its durable description (a plain ref is of the recorded run only). */
function dropTargetOf(to: unknown): ElementTarget | undefined {
  const parsed = ElementTargetSchema.safeParse(to)
  return parsed.success ? parsed.data : undefined
}
