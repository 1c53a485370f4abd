import type { SessionState } from '../../browser/browser-session.ts'

// Apart from run-profile.ts: RunOptions names these, and run-profile.ts reads RunOptions.

/**
 * Where a run's profile is kept: the server and CLI pass their ProfileStore
 * (store/ seals and merges; agent/ only asks). `save` merges `state` into what
 * is stored now, `base` being the state the run started from.
 */
export interface RunProfiles {
  load(name: string): Promise<SessionState | undefined>
  save(name: string, state: SessionState, options: { base: SessionState; runId: string }): Promise<void>
}

/** When a run saves its profile back: by default only after `done({ success: true })`. */
export const profileSaveModes = ['success', 'always', 'never'] as const
export type ProfileSave = (typeof profileSaveModes)[number]
