import { watchTopLevelSchemes } from '../network/scheme-guard.ts'
import { NetworkActivity } from '../settle/network-activity.ts'
import type { BrowserHealth } from './browser-health.ts'
import { type DialogPolicy, watchDialogs } from './dialogs.ts'
import type { DownloadSaver } from './downloads.ts'
import type { NoteQueue } from './notes.ts'
import type { Tab } from './tabs.ts'

/** What watching a tab's page needs from its session. */
export interface TabWatchContext {
  dialogs: DialogPolicy
  allowUnsafeSchemes: boolean
  notes: NoteQueue
  health: BrowserHealth
  downloads: DownloadSaver
}

/**
 * Everything a session watches on each tab's page, from the moment the tab
 * opens: its requests (what settling waits for), its dialogs, downloads and
 * crashes, and the schemes its main frame may show. `stop` lets it all go.
 */
export function watchTab(
  tab: Tab,
  context: TabWatchContext,
): { activity: NetworkActivity; stop: () => void } {
  const { page } = tab
  const activity = new NetworkActivity(page)
  page.setDefaultTimeout(10_000)
  const stopDialogs = watchDialogs(page, context.dialogs, context.notes, () => tab.id)
  const stopDownloads = context.downloads.watch(page)
  const onCrash = () => {
    context.health.pageCrashed(tab.id)
    context.notes.push(`The page in tab ${tab.id} crashed; navigate or reload to continue.`)
  }
  page.on('crash', onCrash)
  const stopSchemes = context.allowUnsafeSchemes
    ? () => {}
    : watchTopLevelSchemes(page, (note) => context.notes.push(note))
  return {
    activity,
    stop: () => {
      stopSchemes()
      activity.detach()
      stopDialogs()
      stopDownloads()
      page.off('crash', onCrash)
    },
  }
}
