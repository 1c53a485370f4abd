import type { AgentEvent, AgentEventOf } from '../events/events.ts'
import type { McpBackend } from './backend.ts'
import type { TaskHost } from './task-host.ts'

/** What happened to the confirmations and questions of a run the caller could not be asked about. */
export type ReplyNote = string

/**
 * Answers the confirmations and questions a followed run (or its sub-agents)
 * waits for: through elicitation when the client supports it, else at once
 * with the policy's default (a confirmation is denied, as on its timeout), and
 * notes each default so the answer can say so.
 */
export class RunReplies {
  readonly #backend: McpBackend
  readonly #host: TaskHost
  readonly #signal: AbortSignal
  readonly #pending = new Set<Promise<void>>()
  readonly notes: ReplyNote[] = []

  /** `signal` ends the asking: the call was cancelled, or the run ended meanwhile. */
  constructor(backend: McpBackend, host: TaskHost, signal: AbortSignal) {
    this.#backend = backend
    this.#host = host
    this.#signal = signal
  }

  /** Starts answering, when the event asks something; never waits for the person. */
  handle(event: AgentEvent): void {
    if (event.type !== 'confirmation_required' && event.type !== 'question') return
    const pending = (event.type === 'question' ? this.#answer(event) : this.#confirm(event)).catch(
      (error: unknown) => {
        // The run decides on its own (timeout) when a reply cannot be delivered; the answer says why.
        if (!this.#signal.aborted) this.notes.push(`A reply could not be delivered: ${String(error)}`)
      },
    )
    this.#pending.add(pending)
    void pending.finally(() => this.#pending.delete(pending))
  }

  /** Waits for the replies started so far (they end with the signal). */
  async settled(): Promise<void> {
    await Promise.all(this.#pending)
  }

  async #confirm(event: AgentEventOf<'confirmation_required'>): Promise<void> {
    const { elicit } = this.#host
    const input = JSON.stringify(event.input)
    if (!elicit) {
      this.notes.push(
        `The call ${event.tool} ${input} needed a confirmation; this client cannot be asked (no elicitation), so it was denied, as on a confirmation timeout.`,
      )
      await this.#backend.reply({
        kind: 'confirmation',
        runId: event.runId,
        id: event.callId,
        approve: false,
      })
      return
    }
    const reply = await elicit(
      {
        message: `Sextant wants to run ${event.tool} ${input}: ${event.reason}. Allow it?`,
        field: { name: 'approve', type: 'boolean', title: 'Allow' },
        expiresAt: event.expiresAt,
      },
      this.#signal,
    )
    const approve = reply?.approve === true
    await this.#backend.reply({ kind: 'confirmation', runId: event.runId, id: event.callId, approve })
  }

  async #answer(event: AgentEventOf<'question'>): Promise<void> {
    const { elicit } = this.#host
    const reply = elicit
      ? await elicit(
          { message: event.question, field: { name: 'answer', type: 'string', title: 'Answer' } },
          this.#signal,
        )
      : undefined
    const answer = typeof reply?.answer === 'string' ? reply.answer : undefined
    if (answer === undefined) {
      this.notes.push(
        `The run asked "${event.question}"; ${elicit ? 'the person declined to answer' : 'this client cannot be asked (no elicitation)'}, so it was told no answer is available.`,
      )
    }
    await this.#backend.reply({
      kind: 'answer',
      runId: event.runId,
      id: event.questionId,
      answer: answer ?? 'No answer is available: nobody can be asked. Continue without it.',
    })
  }
}
