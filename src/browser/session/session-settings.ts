import type { BrowserSessionOptions } from '../browser-session.ts'
import { NetworkPolicy } from '../network/network-policy.ts'
import { defaultTokenCap } from '../view/page-view.ts'
import type { SessionSettings } from './tool-surface.ts'

/** A session's settings from its options, defaults applied; `network` is the guard's policy when one was opened for it. */
export function sessionSettings(options: BrowserSessionOptions, network?: NetworkPolicy): SessionSettings {
  return {
    runId: options.runId,
    policy: {
      allowedDomains: options.allowedDomains,
      allowUnsafeSchemes: options.allowUnsafeSchemes,
      network: network ?? new NetworkPolicy(options),
    },
    uploadDir: options.uploadDir,
    dialogs: options.dialogs ?? 'accept',
    tokenCap: options.pageViewTokenCap ?? defaultTokenCap,
    actionTimeoutMs: 2500,
    navigationTimeoutMs: 15_000,
  }
}
