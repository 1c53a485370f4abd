import { createInterface } from 'node:readline/promises'
import { AbortError } from '../../tool.ts'

export interface PromptIo {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  /** Ctrl-C inside a prompt: readline catches it, so it is handed on here. */
  onInterrupt: () => void
}

/** Asks one question on the terminal; rejects with AbortError when the signal aborts first. */
export async function ask(question: string, io: PromptIo, signal: AbortSignal): Promise<string> {
  if (signal.aborted) throw new AbortError()
  const readline = createInterface({ input: io.input, output: io.output, terminal: true })
  readline.on('SIGINT', io.onInterrupt)
  try {
    return (await readline.question(question, { signal })).trim()
  } catch (error) {
    if (signal.aborted) throw new AbortError()
    throw error
  } finally {
    readline.close()
  }
}

/** y/yes approves; anything else, an empty answer included, denies. */
export async function confirm(question: string, io: PromptIo, signal: AbortSignal): Promise<boolean> {
  const answer = await ask(`${question} [y/N] `, io, signal)
  return /^y(es)?$/i.test(answer)
}
