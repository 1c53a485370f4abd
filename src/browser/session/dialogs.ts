import type { Dialog, Page } from 'playwright-core'
import type { NoteQueue } from './notes.ts'

export type DialogPolicy = 'accept' | 'dismiss'

/**
 * Answers alert/confirm/prompt dialogs at once (a dialog left open blocks the
 * page) and reports each with its message. `beforeunload` is always accepted
 * so leaving a page never hangs.
 */
export function watchDialogs(
  page: Page,
  policy: DialogPolicy,
  notes: NoteQueue,
  tabId: () => string,
): () => void {
  const onDialog = async (dialog: Dialog) => {
    const type = dialog.type()
    const accept = policy === 'accept' || type === 'beforeunload'
    try {
      if (accept) await dialog.accept(type === 'prompt' ? dialog.defaultValue() : undefined)
      else await dialog.dismiss()
    } catch {
      // The page went away with its dialog.
    }
    const message = dialog.message().replace(/\s+/g, ' ').trim().slice(0, 300)
    const answer = accept ? (type === 'prompt' ? 'accepted with its default value' : 'accepted') : 'dismissed'
    notes.push(`A ${type} dialog in tab ${tabId()} said ${JSON.stringify(message)}; it was ${answer}.`)
  }
  page.on('dialog', onDialog)
  return () => page.off('dialog', onDialog)
}
