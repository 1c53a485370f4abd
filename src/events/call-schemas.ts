import { z } from 'zod'

/**
 * The schemas call events share with recordings: the durable target of a
 * call's element, what the call left on the page, where the call came from,
 * and a replay's tally. They live here, below recording/, because events/
 * is the bottom of the layers: recording/ builds its format on them.
 */

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

/**
 * Where a coordinate action's point was inside the element found under it:
 * fractions of the element's box from its left and top edges, so a replay
 * acts at the same place in the element wherever the element now is.
 */
export const BoxOffsetSchema = z.object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) })
export type BoxOffset = z.infer<typeof BoxOffsetSchema>

/** What a coordinate action's point was on: the element under it, durably, and the point's place in its box. */
export const PointTargetSchema = z.object({ target: ElementTargetSchema, offset: BoxOffsetSchema })
export type PointTarget = z.infer<typeof PointTargetSchema>

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
