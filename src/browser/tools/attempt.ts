import { z } from 'zod'
import { AbortError, failed, isAbortError, type ToolContext, type ToolResult } from '../../tool.ts'

export const refInput = z.string().min(1).describe('Element ref from the page view, e.g. b1x3')

/**
 * Runs an action so that page-level failures become failed results the model
 * reads, while an abort stays an AbortError for the loop.
 */
export async function attempt(ctx: ToolContext, action: () => Promise<ToolResult>): Promise<ToolResult> {
  if (ctx.signal.aborted) throw new AbortError()
  try {
    return await action()
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) throw new AbortError()
    return failed(explainFailure(error))
  }
}

/** A Playwright error as one sentence: the first line, with the call log's reason when it has one. */
export function explainFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const reason = blockingReason(message)
  if (reason) return `The element ${reason}.`
  if (/Target page, context or browser has been closed|Target closed/i.test(message))
    return 'The page was closed.'
  if (/Execution context was destroyed|frame was detached/i.test(message)) {
    return 'The page navigated away while the action ran.'
  }
  const first = (message.split('\n')[0] ?? message).replace(/^[\w.]+: /, '')
  return first.length > 300 ? `${first.slice(0, 299)}…` : first
}

/** What Playwright's actionability log says held an action up, if anything. */
export function blockingReason(message: string): string | undefined {
  const covered =
    /(<[^\n]*?>)(?:…|\.\.\.)?(?:<\/\w+>)? (?:from <[^\n]*?> subtree )?intercepts pointer events/.exec(message)
  if (covered) return `is covered by ${covered[1]!.slice(0, 120)}`
  if (message.includes('element is not enabled')) return 'is disabled'
  if (message.includes('element is not visible')) return 'is not visible'
  if (message.includes('element is not stable')) return 'keeps moving (animation)'
  if (message.includes('element is not editable')) return 'is not editable'
  if (message.includes('Element is not attached') || message.includes('element was detached')) {
    return 'was removed from the page'
  }
  return undefined
}

export function quoteText(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ')
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat)
}
