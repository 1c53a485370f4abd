/**
 * The run's desk for a person: the caller (a server route, a terminal) asks
 * for the browser and hands it back here; the handing_over state holds the
 * run there meanwhile. One desk per run; a run without one never hands over.
 */

/** How long a run waits for a person by default (SEXTANT_HANDOVER_TIMEOUT_MS). */
export const defaultHandoverTimeoutMs = 10 * 60_000
/** Hand-overs a run's model may ask for by default (SEXTANT_MAX_HANDOVERS). */
export const defaultMaxHandovers = 3

/** One person's time with the browser, from takeover_started to takeover_ended. */
export interface Takeover {
  /** Settles when the person hands the browser back. */
  readonly handedBack: Promise<void>
  /** The run stopped waiting (handed back, timed out or aborted): the desk is free again. */
  end(): void
}

export interface HandoverDesk {
  /** How long the run waits for a person before it goes on without them. */
  readonly timeoutMs: number
  /**
   * Hand-overs the model may ask for in the run: each holds the run (and its
   * slot) up to `timeoutMs`, and a page can dictate the asking. A person's own
   * takeovers are not counted.
   */
  readonly maxHandovers: number
  /** A person asked for the browser and the run has not yet stopped for them. */
  readonly requested: boolean
  /**
   * A person asks for the browser: the run stops at its next step boundary
   * (the action in flight finishes first). Idempotent while asked or taken over.
   */
  takeOver(): void
  /** The person hands back: false when nobody had the browser nor had asked for it. */
  handBack(): boolean
  /** The run stops for the person now (the agent's side; it ends the request, if any). */
  begin(): Takeover
}

export interface HandoverDeskOptions {
  /** Default 10 minutes (defaultHandoverTimeoutMs). */
  timeoutMs?: number
  /** Default 3 (defaultMaxHandovers); 0: the model is not offered hand_over. */
  maxHandovers?: number
}

export function createHandoverDesk(options: HandoverDeskOptions = {}): HandoverDesk {
  let requested = false
  let current: PromiseWithResolvers<void> | undefined
  return {
    timeoutMs: options.timeoutMs ?? defaultHandoverTimeoutMs,
    maxHandovers: options.maxHandovers ?? defaultMaxHandovers,
    get requested() {
      return requested
    },
    takeOver() {
      if (!current) requested = true
    },
    handBack() {
      if (current) {
        current.resolve()
        return true
      }
      const wasRequested = requested
      requested = false
      return wasRequested
    },
    begin() {
      requested = false
      const mine = Promise.withResolvers<void>()
      current = mine
      return {
        handedBack: mine.promise,
        end: () => {
          if (current === mine) current = undefined
        },
      }
    },
  }
}
