/** Hono's per-request variables in this app. */
export interface AppEnv {
  Variables: {
    /** The run a request concerns, for its log line. */
    runId?: string
  }
}
