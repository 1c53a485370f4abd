import type { ProxySettings } from '../browser/network/upstream-proxy.ts'
import type { AgentEvent } from '../events/events.ts'
import type { Recording } from '../recording/schema.ts'
import type { StoredRun } from '../store/run-store.ts'
import type { ReplyMessage } from '../store/shared.ts'

/** What an MCP tool asks a run to be: the run request fields the tools accept. */
export interface McpRunRequest {
  task?: string
  startUrl?: string
  allowedDomains?: string[]
  maxTurns?: number
  maxSessionTokens?: number
  /** Dollars after which the run ends with budget_exceeded (a priced model only). */
  maxCostUsd?: number
  /** Wall-clock milliseconds after which the run ends with budget_exceeded. */
  maxDurationMs?: number
  /** A saved browser profile to start from, saved back after success. */
  profile?: string
  replay?: string | Recording
  variables?: Record<string, string>
  /** A JSON Schema the run's `done` data must match (typed results). */
  output?: Record<string, unknown>
  /** False: no person may take the browser over, and the model is not offered hand_over. */
  handover?: boolean
  /** A proxy the run's traffic leaves through, behind its network guard. */
  proxy?: ProxySettings
  /** With the shared queue: higher is claimed first. */
  priority?: number
  /** With the shared queue: how long the run may wait for a server before it ends `error`. */
  queueTimeoutMs?: number
  /** An http(s) URL told when the run ends, signed with the server's SEXTANT_WEBHOOK_SECRET. */
  webhook?: string
}

/**
 * Where MCP tools start and follow runs. The server implements it with its
 * run manager (admission, store, viewer); `sextant mcp` with the same manager
 * over its own store, without HTTP. Keeping it an interface keeps mcp/ below
 * server/ (DESIGN Layers).
 */
export interface McpBackend {
  /** Starts (or queues) a run; its id. Throws the manager's typed errors before anything starts. */
  start(request: McpRunRequest): Promise<string>
  /** The run's events from its start until its own `done` (sub-agents' events included). */
  follow(runId: string, signal: AbortSignal): AsyncIterable<AgentEvent>
  /** Aborts the run: it ends with `user_abort`. */
  abort(runId: string): Promise<void>
  /** Delivers a confirmation or an answer the run waits for. */
  reply(message: ReplyMessage): Promise<void>
  /** Newest first; `status` filters. */
  listRuns(options: { limit: number; status?: StoredRun['status'] }): Promise<StoredRun[]>
  /**
   * The run with the runs its sub-agents ran, and `waitingForPerson` while a
   * person has its browser (taken over, or asked for with hand_over); undefined when there is no such run.
   */
  getRun(runId: string): Promise<(StoredRun & { children: StoredRun[]; waitingForPerson?: true }) | undefined>
  /** The run's page in the viewer, when a server shows one. */
  viewerUrl(runId: string): string | undefined
}
