import { z } from 'zod'
import { type ActionDescriptor, notExported } from '../../recording/action-descriptor.ts'
import { defineTool, type Tool } from '../../tool.ts'
import type { Question } from '../run/run-options.ts'

type AskUser = (question: Question, signal: AbortSignal) => Promise<string>

export const askUserAction: ActionDescriptor = {
  name: 'ask_user',
  description:
    'Ask the user what the task cannot go on without (a choice, a missing detail, a code); never what the page shows.',
  effect: null,
  docs: { input: '`{ question }`', does: 'only when the caller can answer questions' },
  stuck: 'observes',
  record: { element: 'none', outcome: false },
  // A spec has nobody to ask.
  playwright: notExported,
}

/** Exists only when the caller can answer: the callback is the run's channel to a person. */
export function createAskUserTool(askUser: AskUser): Tool<{ question: string }> {
  return defineTool({
    name: askUserAction.name,
    description: askUserAction.description,
    input: z.object({ question: z.string().min(1) }),
    async execute(input, ctx) {
      const questionId = `q_${ctx.callId}`
      ctx.emit({ type: 'question', questionId, question: input.question })
      const answer = await askUser({ runId: ctx.runId, questionId, question: input.question }, ctx.signal)
      ctx.emit({ type: 'answer', questionId, answer })
      return { ok: true, text: `The user answered: ${answer}` }
    },
  })
}
