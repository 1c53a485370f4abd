import { z } from 'zod'
import { capEvent } from '../../events/event-cap.ts'
import { type AgentEvent, type EventType, eventSchemas, isLiveOnly, stampEvent } from '../../events/events.ts'
import type { RunSecrets } from '../../secrets/secrets.ts'
import type { Effect, ForwardedEvent } from './run-state.ts'

/**
 * Each event's own fields that can only hold fixed words of the event
 * vocabulary (an enum or a literal in its schema: `done.reason`,
 * `takeover_started.by`): not scrubbed, so a secret whose value is `error`
 * cannot rewrite one. Read from the schemas, so a free-text field (the
 * model's `hand_over` reason, a warning's code) is data whatever its name.
 */
const eventVocabulary: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  (Object.keys(eventSchemas) as EventType[]).map((type) => [
    type,
    new Set(
      Object.entries(eventSchemas[type].shape as Record<string, z.ZodType>).flatMap(([key, field]) => {
        const bare = field instanceof z.ZodOptional ? field.unwrap() : field
        return bare instanceof z.ZodEnum || bare instanceof z.ZodLiteral ? [key] : []
      }),
    ),
  ]),
)
/** `secrets` holds the names of the run's secrets (run_started, tool_call_result), never a value. */
const secretNames = 'secrets'

export interface StamperOptions {
  runId: string
  secrets: RunSecrets
  maxEventBytes: number
  now: () => number
  /** Told what was cut when an event is over the cap, for the model's next prompt. */
  onCut: (note: string) => void
}

/**
 * The one place events are made: every event is scrubbed of the run's
 * secrets and kept under the size cap here, whatever state drafted it. A cut
 * event is followed by a warning that says so (and the model is told).
 * A child's forwarded event keeps its child's runId and time and takes this
 * stream's next seq, so the stream stays gapless. A live-only event (text as
 * it streams: isLiveOnly) takes none: it carries the seq of the event before it.
 */
export function eventStamper(options: StamperOptions): (draft: Effect) => AgentEvent[] {
  const { runId, secrets, maxEventBytes, now } = options
  let seq = 0
  return (draft) => {
    const scrubbed = scrubEvent(draft, secrets)
    // run_started always comes first, so a live-only event has an event before it.
    const own = isLiveOnly(scrubbed) ? seq - 1 : seq++
    const capped = capEvent(
      isForwarded(scrubbed) ? { ...scrubbed, seq: own } : stampEvent(scrubbed, runId, own, new Date(now())),
      maxEventBytes,
    )
    if (capped.cut === 0) return [capped.event]
    const message = `A ${draft.type} event was over ${Math.round(maxEventBytes / 1024)} KB: ${capped.cut} characters of its longest texts were cut (maxEventBytes).`
    options.onCut(`${message} The page has very long texts (title or URL); rely on the page view.`)
    const warning = stampEvent(
      { type: 'warning', code: 'event_truncated', message },
      runId,
      seq++,
      new Date(now()),
    )
    return [capped.event, warning]
  }
}

/**
 * The draft scrubbed of secret values, sparing only its own vocabulary fields:
 * nested values are data (a call's input, `done`'s data) whose keys may be
 * called `type` or `kind` and must be scrubbed all the same.
 */
function scrubEvent(draft: Effect, secrets: RunSecrets): Effect {
  if (secrets.isEmpty) return draft
  const vocabulary = eventVocabulary.get(draft.type)
  const entries = Object.entries(draft).map(([key, value]) => [
    key,
    key === secretNames || vocabulary?.has(key) ? value : secrets.scrubDeep(value),
  ])
  return Object.fromEntries(entries) as Effect
}

/** A child's event (stamped already, with its parent) rather than this run's draft. */
function isForwarded(effect: Effect): effect is ForwardedEvent {
  return 'parentRunId' in effect && effect.parentRunId !== undefined
}
