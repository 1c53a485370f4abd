/** Sextant's public library API. */

export { defaultMaxTurns, runAgent } from './agent/loop.ts'
export type {
  ConfirmationRequest,
  Question,
  RunOptions,
  RunSummary,
  SubAgentOptions,
} from './agent/loop-types.ts'
export type { PolicyDecision, PolicyRule } from './agent/policy.ts'
export { ReplayError } from './agent/replay-setup.ts'
export type { RecoveryStrategy, StuckOptions } from './agent/stuck/options.ts'
export { createStuckDetector } from './agent/stuck/stuck-monitor.ts'
export type { StuckDetector } from './agent/stuck/types.ts'
export type { BrowserPool, LaunchOptions } from './browser/launcher.ts'
export { createBrowserPool } from './browser/launcher.ts'
export type {
  BrowserSession,
  BrowserSessionFactory,
  BrowserSessionOptions,
  PageObservation,
  SessionState,
  TabInfo,
} from './browser/types.ts'
export type {
  EvalEvent,
  EvalModel,
  EvalOptions,
  EvalReport,
  EvalRun,
  EvalStreamEvent,
  EvalTask,
  LoadedSuite,
  Suite,
} from './eval/index.ts'
export {
  compareReports,
  EvalEventSchema,
  EvalReportSchema,
  loadSuite,
  parseSuite,
  runEval,
  SuiteError,
  SuiteSchema,
  serveFixtures,
  toJUnit,
} from './eval/index.ts'
export type { AgentEvent, AgentEventOf, DoneReason, EventType, RunResult, Usage } from './events/events.ts'
export { AgentEventSchema, eventSchemas, eventTypes } from './events/events.ts'
export type {
  ModelConfigErrorCode,
  ModelPrice,
  ModelSettings,
  PriceTable,
  ResolvedModel,
} from './model/index.ts'
export {
  costOf,
  findPrice,
  loadPriceTable,
  ModelConfigError,
  PriceFileError,
  resolveModel,
} from './model/index.ts'
export { checkRecording, type RecordingCheck } from './recording/check.ts'
export { recordingOf } from './recording/from-events.ts'
export { type PlaywrightExportOptions, playwrightSpec } from './recording/playwright.ts'
export type { ElementTarget, Expectation, RecordedStep, Recording, ReplayStats } from './recording/schema.ts'
export { RecordingSchema, recordingVersion } from './recording/schema.ts'
export type { ServerOptions, SextantServer } from './server/server.ts'
export { startServer } from './server/server.ts'
export type { RunStore, SharedRunStore, StoredRun } from './store/index.ts'
export { MemoryRunStore, PostgresRunStore, SqliteRunStore } from './store/index.ts'
export type { AnyTool, Tool, ToolContext, ToolResult } from './tool.ts'
export { AbortError, defineTool, failed, isAbortError, ok } from './tool.ts'
