import { AbortError, isAbortError } from '../../tool.ts'
import { firstLineOf } from '../../util/describe-error.ts'
import { navigationRefusal, normalizeUrl } from '../network/navigation-guard.ts'
import type { NoteQueue } from './notes.ts'
import type { Tab } from './tabs.ts'
import type { SessionSettings } from './tool-surface.ts'

/**
 * Opens the run's start URL in its first tab, as far as it commits: the
 * first observation settles it. A refused or unreachable start URL is a note
 * for the model, never the run's failure (the model can go elsewhere).
 */
export async function openStartPage(
  tab: Tab,
  startUrl: string,
  settings: SessionSettings,
  notes: NoteQueue,
  signal: AbortSignal,
): Promise<void> {
  const url = normalizeUrl(startUrl)
  const refusal = navigationRefusal(url, settings.policy)
  if (refusal) {
    notes.push(`The start URL was not opened. ${refusal}`)
    return
  }
  try {
    await tab.page.goto(url, { waitUntil: 'commit', timeout: settings.navigationTimeoutMs, signal })
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw new AbortError()
    notes.push(`The start URL ${url} could not be opened: ${firstLineOf(error)}`)
  }
}
