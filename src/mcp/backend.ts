import type { RunRequest } from '../agent/run/run-request-fields.ts'
import type { AgentEvent } from '../events/events.ts'
import type { StoredRun } from '../store/run-store.ts'
import type { ReplyMessage } from '../store/shared.ts'

/** What an MCP tool asks a run to be: a run request (its tools' inputs are views of the one schema). */
export type McpRunRequest = RunRequest

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
