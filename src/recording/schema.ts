import { z } from 'zod'
import { BoxOffsetSchema, ElementTargetSchema, PointTargetSchema } from '../events/call-schemas.ts'
import { PageLogSchema } from '../events/page-log.ts'

/**
 * The recording of a run: what it did, step by step, described so that it
 * can be done again on a fresh page without a model (see docs/recording.md).
 * Only zod: the browser layer and the agent read these types. The parts call
 * events carry too (targets, outcomes, call sources, replay tallies) are in
 * events/call-schemas.ts.
 */

// The types this module's readers (browser/, agent/) know as part of the recording format.
export type {
  BoxOffset,
  CallOutcome,
  ElementTarget,
  PointTarget,
  ReplayStats,
} from '../events/call-schemas.ts'

export const recordingVersion = 1

/** What a step achieved, checked after it is replayed. Light on purpose: a redesign should not break it. */
export const ExpectationSchema = z.discriminatedUnion('kind', [
  /** A navigation happened: the page is at this URL (origin rebased when the replay starts elsewhere). */
  z.object({ kind: z.literal('url'), url: z.string() }),
  /** This text is now on the page (a typed and submitted entry appeared). */
  z.object({ kind: z.literal('appeared'), text: z.string() }),
  /** The step's target is no longer on the page (a deleted row, a closed dialog). */
  z.object({ kind: z.literal('gone') }),
  /** The step's target field holds this value. */
  z.object({ kind: z.literal('value'), value: z.string() }),
])
export type Expectation = z.infer<typeof ExpectationSchema>

/** Why a step is kept but not replayed. */
export const skipReasons = ['failed', 'undone'] as const

export const RecordedStepSchema = z.object({
  /** The run's step number the call was made in. */
  step: z.number().int().positive(),
  /** What the step was for: the model's `next_goal`. */
  goal: z.string().optional(),
  tool: z.string(),
  /** The call's input without its ref (a drag's `to` as a durable target); typed values may hold `{{variable}}` and `<secret>name</secret>`. */
  input: z.record(z.string(), z.unknown()),
  /** The element the call acted on, for calls that take a ref. */
  target: ElementTargetSchema.optional(),
  /** A coordinate step (`click_at`, `hover_at`, `drag_at`): where its point was in `target`'s box; replayed there. */
  offset: BoxOffsetSchema.optional(),
  /** A `drag_at`'s end: the element under it and where in its box it was. */
  drop: PointTargetSchema.optional(),
  urlBefore: z.string().optional(),
  urlAfter: z.string().optional(),
  expect: z.array(ExpectationSchema).optional(),
  /** Kept for the record but not replayed: the call failed, or a later step undid it. */
  skip: z.enum(skipReasons).optional(),
  /**
   * The run's secrets this call typed, by name, under the input field they went
   * through (`{ "text": ["pw"] }`): the only place an exported spec reads them back.
   */
  secrets: z.record(z.string(), z.array(z.string())).optional(),
  /** What the page reported after the call (the next observation's page log), for the record; not replayed. */
  pageLog: PageLogSchema.optional(),
})
export type RecordedStep = z.infer<typeof RecordedStepSchema>

export const RecordingSchema = z.strictObject({
  version: z.literal(recordingVersion),
  task: z.string(),
  startUrl: z.string().optional(),
  /** Default values of the `{{name}}` templates the steps use; a replay's variables override them. */
  variables: z.record(z.string(), z.string()).optional(),
  /** The caller's instructions for the run: a replay that heals gives them to the model again. */
  instructions: z.string().optional(),
  /**
   * The browser context the run asked for, less its headers (credentials, given again to a replay): a
   * replay runs in it, checked by the run request's own rules when the replay starts.
   */
  browser: z.record(z.string(), z.unknown()).optional(),
  /** The run the recording was made from. */
  runId: z.string().optional(),
  /** The run's output schema (JSON Schema): a replay fills it with one model call on the final page. */
  output: z.record(z.string(), z.unknown()).optional(),
  /** The names of the run's secrets: an export reads from the environment only these, only where a step typed them. */
  secrets: z.array(z.string()).optional(),
  steps: z.array(RecordedStepSchema),
})
export type Recording = z.infer<typeof RecordingSchema>
