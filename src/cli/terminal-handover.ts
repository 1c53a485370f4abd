import { createHandoverDesk, type HandoverDesk } from '../agent/handover-desk.ts'
import type { AgentEvent } from '../events/events.ts'

/** Asks one question on the terminal (see prompts.ts), the live view paused meanwhile. */
export type TerminalAsk = (question: string, signal: AbortSignal) => Promise<string>

export interface TerminalHandover {
  desk: HandoverDesk
  /** Sees the run's events: a takeover asks the person at the terminal, its end stops asking. */
  onEvent(event: AgentEvent): void
}

/**
 * A person at the terminal does what the model's `hand_over` asks (in the
 * browser window with --headed, or elsewhere: a code on their phone) and
 * presses Enter to hand the browser back. The desk's timeout still bounds the
 * wait; the prompt goes away when the run stops waiting, however it stops.
 */
export function terminalHandover(ask: TerminalAsk, timeoutMs: number): TerminalHandover {
  const desk = createHandoverDesk({ timeoutMs })
  let waiting: AbortController | undefined
  return {
    desk,
    onEvent(event) {
      // A sub-agent never hands over: only the run's own takeover is the person's.
      if (event.parentRunId !== undefined) return
      if (event.type === 'takeover_started') {
        waiting = new AbortController()
        const reason = event.reason ?? 'A person is asked for.'
        ask(
          `\n✋ ${reason}\n  Do it (in the browser window, with --headed), then press Enter to hand back. `,
          waiting.signal,
        ).then(
          () => desk.handBack(),
          // Aborted: the run stopped waiting (handed back, timed out, aborted); nothing to hand back.
          () => {},
        )
      }
      if (event.type === 'takeover_ended' || event.type === 'done') waiting?.abort()
    },
  }
}
