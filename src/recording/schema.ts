import { z } from 'zod'

/**
 * The recording of a run: what it did, step by step, described so that it
 * can be done again on a fresh page without a model (see docs/recording.md).
 * Only zod: the events, the browser layer and the agent all read these types.
 */

export const recordingVersion = 1

/** A container around an element that tells it from its look-alikes: "the list item 'Buy milk'". */
export const TargetContextSchema = z.object({
  /** The container's role (`listitem`, `row`, `article`, `form`, `dialog`, `region`, `group`…). */
  role: z.string(),
  /** Its accessible name, else its text without the element's own (at most 40 characters). */
  label: z.string(),
})
export type TargetContext = z.infer<typeof TargetContextSchema>

/** The few attributes that tend to survive a redesign. */
export const TargetAttributesSchema = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  'data-testid': z.string().optional(),
  href: z.string().optional(),
  /** The text of the `<label>` of a form field. */
  label: z.string().optional(),
})
export type TargetAttributes = z.infer<typeof TargetAttributesSchema>

/**
 * A durable description of an element: what a person would say to point at
 * it, never a ref or a selector of one page load. Resolved on the current
 * page by role and name (scoped by `context` for duplicates), then by tag and
 * attributes.
 */
export const ElementTargetSchema = z.object({
  role: z.string(),
  /** Accessible name; '' for a nameless element. */
  name: z.string(),
  /** The distinguishing context, nearest container first; absent when role and name are unique. */
  context: z.array(TargetContextSchema).optional(),
  /** The iframes the element is in, outermost first (their name, else their src); absent in the main frame. */
  frame: z.array(z.string()).optional(),
  /** The element's tag, lower case. */
  tag: z.string().optional(),
  attributes: TargetAttributesSchema.optional(),
})
export type ElementTarget = z.infer<typeof ElementTargetSchema>

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
  /** The call's input without its ref; typed values may hold `{{variable}}` and `<secret>name</secret>`. */
  input: z.record(z.string(), z.unknown()),
  /** The element the call acted on, for calls that take a ref. */
  target: ElementTargetSchema.optional(),
  urlBefore: z.string().optional(),
  urlAfter: z.string().optional(),
  expect: z.array(ExpectationSchema).optional(),
  /** Kept for the record but not replayed: the call failed, or a later step undid it. */
  skip: z.enum(skipReasons).optional(),
})
export type RecordedStep = z.infer<typeof RecordedStepSchema>

export const RecordingSchema = z.strictObject({
  version: z.literal(recordingVersion),
  task: z.string(),
  startUrl: z.string().optional(),
  /** Default values of the `{{name}}` templates the steps use; a replay's variables override them. */
  variables: z.record(z.string(), z.string()).optional(),
  /** The run the recording was made from. */
  runId: z.string().optional(),
  steps: z.array(RecordedStepSchema),
})
export type Recording = z.infer<typeof RecordingSchema>

/** What a finished call left on the page, for the recording's expectations (on `tool_call_result`). */
export const CallOutcomeSchema = z.object({
  /** The active page's URL after the call. */
  url: z.string(),
  /** The call's target is no longer on the page. */
  targetGone: z.boolean().optional(),
  /** The text the call typed is shown on the page (outside the field it was typed into). */
  textShown: z.boolean().optional(),
})
export type CallOutcome = z.infer<typeof CallOutcomeSchema>

/** A replayed run's tally, on its `done` event. */
export const ReplayStatsSchema = z.object({
  /** Recorded steps replayed without the model. */
  replayed: z.number().int().nonnegative(),
  /** Recorded steps the model redid because the page had changed. */
  healed: z.number().int().nonnegative(),
  /** Model calls made while healing. */
  modelSteps: z.number().int().nonnegative(),
})
export type ReplayStats = z.infer<typeof ReplayStatsSchema>

/** Where a call came from: a model's answer, or a recording's step. */
export const callSources = ['model', 'replay'] as const
