import type { HandoverDesk } from '../../agent/handover/handover-desk.ts'
import type { AgentEvent } from '../../events/events.ts'
import { modelSays } from '../../util/text.ts'

/** Asks one question on the terminal (see prompts.ts), the live view paused meanwhile. */
export type TerminalAsk = (question: string, signal: AbortSignal) => Promise<string>

export interface TerminalHandoverOptions {
  desk: HandoverDesk
  /** The run's page in the local viewer (see run-viewer.ts), where the person reaches the browser. */
  viewerUrl: string
  /** A person at the terminal: asked to press Enter to hand back. Absent (no TTY, --json): told on stderr. */
  ask?: TerminalAsk
  /** Where the notice goes without a terminal to ask on. */
  write: (text: string) => void
}

/**
 * Tells the person where the browser is when a takeover starts: the
 * viewer's URL, where they do what `hand_over` asks (also in the browser
 * window, with --headed) and hand back. At a terminal they may also press
 * Enter; the desk's timeout still bounds the wait, and the prompt goes away
 * when the run stops waiting, however it stops. Returns the events' watcher.
 */
export function terminalHandover(options: TerminalHandoverOptions): (event: AgentEvent) => void {
  const { desk, viewerUrl, ask } = options
  let waiting: AbortController | undefined
  return (event) => {
    // A sub-agent never hands over: only the run's own takeover is the person's.
    if (event.parentRunId !== undefined) return
    if (event.type === 'takeover_started') {
      // The reason is the model's, which a page can dictate: quoted as its words, under Sextant's own line.
      const said = event.reason === undefined ? '' : `\n  ${modelSays(event.reason)}`
      const who = event.by === 'model' ? 'The model asks for a person.' : 'A person has the browser.'
      const where = `Open ${viewerUrl} to use the browser (check the address shown there before typing anything)`
      if (!ask) {
        options.write(`✋ ${who}${said}\n  ${where}, then press Hand back there.\n`)
        return
      }
      waiting = new AbortController()
      ask(
        `\n✋ ${who}${said}\n  ${where},\n  then press Enter to hand back (or Hand back there). `,
        waiting.signal,
      ).then(
        () => desk.handBack(),
        // Aborted: the run stopped waiting (handed back, timed out, aborted); nothing to hand back.
        () => {},
      )
    }
    if (event.type === 'takeover_ended' || event.type === 'done') waiting?.abort()
  }
}
