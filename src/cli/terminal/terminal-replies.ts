import type { RunOptions } from '../../agent/run/run-options.ts'
import { confirmationKey, type LiveRun } from '../../server/runs/live-run.ts'
import { AbortError } from '../../tool.ts'
import { ask, confirm, type PromptIo } from './prompts.ts'

/** Runs a terminal question with the live view paused (see commands/run-command.ts). */
export type Prompting = <T>(question: () => Promise<T>) => Promise<T>

/** One way of asking the person; it stops asking when its signal aborts. */
type Asker<T> = (signal: AbortSignal) => Promise<T>

/**
 * How a run at a terminal reaches its person: a confirmation or a question
 * is asked at the terminal and, when the run has a local viewer (see
 * run-viewer.ts), offered there too, on its Approve / Deny and its answer box.
 * The first reply counts; the other way is withdrawn, and a prompt withdrawn
 * because the viewer answered says so.
 */
export function terminalReplies(
  io: PromptIo,
  prompting: Prompting,
  viewer: LiveRun | undefined,
): Required<Pick<RunOptions, 'confirm' | 'askUser'>> {
  const atTerminal =
    <T>(question: Asker<T>, run: AbortSignal): Asker<T> =>
    async (asking) => {
      try {
        return await prompting(() => question(asking))
      } catch (error) {
        // Withdrawn while the run still waits: the viewer answered, and the prompt's line was left open.
        if (asking.aborted && !run.aborted) io.output.write('(answered in the viewer)\n')
        throw error
      }
    }
  return {
    confirm: (request, signal) => {
      const question = `\n? ${request.tool} ${JSON.stringify(request.input)}\n  ${request.reason}\n  Allow it?`
      const key = confirmationKey(request.runId, request.callId)
      return firstReply(
        [
          atTerminal((asking) => confirm(question, io, asking), signal),
          ...(viewer ? [(asking: AbortSignal) => viewer.confirmations.wait(key, asking)] : []),
        ],
        signal,
      )
    },
    askUser: (question, signal) =>
      firstReply(
        [
          atTerminal((asking) => ask(`\n? ${question.question}\n> `, io, asking), signal),
          ...(viewer ? [(asking: AbortSignal) => viewer.questions.wait(question.questionId, asking)] : []),
        ],
        signal,
      ),
  }
}

/** The first of several ways' replies; the others are withdrawn. AbortError when `signal` aborts first. */
export async function firstReply<T>(askers: Asker<T>[], signal: AbortSignal): Promise<T> {
  const withdrawn = new AbortController()
  const asking = AbortSignal.any([signal, withdrawn.signal])
  try {
    return await Promise.any(askers.map((asker) => asker(asking)))
  } catch (error) {
    if (signal.aborted) throw new AbortError()
    // Every way failed (the terminal closed, no viewer): the first one's reason.
    throw error instanceof AggregateError ? error.errors[0] : error
  } finally {
    withdrawn.abort()
  }
}
