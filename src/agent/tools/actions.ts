import { browserActions } from '../../browser/actions/browser-actions.ts'
import type { ActionDescriptor, ActionRegistry } from '../../recording/action-descriptor.ts'
import { checkRecordingWith, type RecordingCheck } from '../../recording/check.ts'
import { type PlaywrightExportOptions, specOf } from '../../recording/playwright.ts'
import type { Recording } from '../../recording/schema.ts'
import { askUserAction } from './ask-user.ts'
import { dispatchAction } from './dispatch-agent.ts'
import { doneAction } from './done.ts'
import { handOverAction } from './hand-over.ts'
import { waitAction } from './wait.ts'

/**
 * Every action Sextant defines, by name: the one registration an action
 * needs beyond its own file. The export, the recording check, the call
 * record, stuck detection and docs/actions.md read it; none of them names an
 * action.
 */
export const actionList: readonly ActionDescriptor[] = [
  ...browserActions,
  waitAction,
  askUserAction,
  handOverAction,
  dispatchAction,
  doneAction,
]

export const actionRegistry: ActionRegistry = new Map(actionList.map((action) => [action.name, action]))

/** Names of the actions whose stuck role is `role`. */
export function actionsThat(role: ActionDescriptor['stuck']): string[] {
  return actionList.filter((action) => action.stuck === role).map((action) => action.name)
}

/** A recording as a `@playwright/test` spec, each step written by its action's descriptor. */
export function playwrightSpec(recording: Recording, options: PlaywrightExportOptions = {}): string {
  return specOf(recording, actionRegistry, options)
}

/** What is wrong with a recording (a file's text, or a value already parsed); see recording/check.ts. */
export function checkRecording(source: string | unknown): RecordingCheck {
  return checkRecordingWith(source, actionRegistry)
}
