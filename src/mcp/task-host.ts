/**
 * What a tool call offers a run while it follows it: the call's cancellation,
 * progress notifications (when the caller gave a token), and a person to ask
 * through MCP elicitation (when the client supports it).
 */
export interface TaskHost {
  /** Aborted when the caller cancels the request (`notifications/cancelled`) or goes away. */
  signal: AbortSignal
  progress(update: { progress: number; total: number; message: string }): Promise<void>
  /** Asks the person at the client; undefined when the client cannot be asked or declined. */
  elicit?: (request: Elicitation, signal: AbortSignal) => Promise<Record<string, unknown> | undefined>
}

export interface Elicitation {
  message: string
  /** One field: a flat JSON Schema object, as MCP form elicitation allows. */
  field: { name: string; type: 'boolean' | 'string'; title: string }
  /** The run stops waiting at this time; asking longer is pointless. */
  expiresAt?: string
}
