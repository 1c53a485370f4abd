import { describeError } from '../../util/describe-error.ts'
import { truncate } from '../../util/text.ts'

const pageGone = /Target page, context or browser has been closed|Target closed/i
const documentGone = /Execution context was destroyed|frame was detached/i

/**
 * Whether a script we ran in the page failed by an error raised there (the
 * page can break the globals our scripts use), rather than by the page,
 * document or element being gone, a timeout, or our own deadline.
 */
export function thrownByPage(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'Error') return false
  const message = error.message
  return !pageGone.test(message) && !documentGone.test(message) && !blockingReason(message)
}

/** A Playwright error as one sentence: the first line, with the call log's reason when it has one. */
export function explainFailure(error: unknown): string {
  const message = describeError(error)
  const reason = blockingReason(message)
  if (reason) return `The element ${reason}.`
  if (pageGone.test(message)) return 'The page was closed.'
  if (documentGone.test(message)) {
    return 'The page navigated away while the action ran.'
  }
  const first = (message.split('\n')[0] ?? message).replace(/^[\w.]+: /, '')
  return truncate(first, 300)
}

/** What Playwright's actionability log says held an action up, if anything. */
export function blockingReason(message: string): string | undefined {
  const covering =
    /(<[^\n]*?>)(?:…|\.\.\.)?(?:<\/\w+>)? (?:from <[^\n]*?> subtree )?intercepts pointer events/.exec(
      message,
    )?.[1]
  if (covering) return `is covered by ${covering.slice(0, 120)}`
  if (message.includes('element is not enabled')) return 'is disabled'
  if (message.includes('element is not visible')) return 'is not visible'
  if (message.includes('element is not stable')) return 'keeps moving (animation)'
  if (message.includes('element is not editable')) return 'is not editable'
  if (message.includes('Element is not attached') || message.includes('element was detached')) {
    return 'was removed from the page'
  }
  return undefined
}
