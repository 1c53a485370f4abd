/** Sextant's public library API. */

export type { PolicyDecision, PolicyRule } from './agent/calls/call-policy.ts'
export {
  createHandoverDesk,
  defaultHandoverTimeoutMs,
  type HandoverDesk,
  type HandoverDeskOptions,
  type Takeover,
} from './agent/handover/handover-desk.ts'
export { defaultMaxTurns, runAgent } from './agent/loop.ts'
export { ReplayError } from './agent/replay/replay-setup.ts'
export type { ProfileSave, RunProfiles } from './agent/run/profile-save.ts'
export type {
  ConfirmationRequest,
  Question,
  RunOptions,
  RunSummary,
  SubAgentOptions,
} from './agent/run/run-options.ts'
export type { RecoveryStrategy, StuckOptions } from './agent/stuck/options.ts'
export type { StuckDetector } from './agent/stuck/stuck-detector.ts'
export { createStuckDetector } from './agent/stuck/stuck-monitor.ts'
export { actionList, checkRecording, playwrightSpec } from './agent/tools/actions.ts'
export type {
  BrowserSession,
  BrowserSessionFactory,
  BrowserSessionOptions,
  PageObservation,
  SessionState,
  TabInfo,
} from './browser/browser-session.ts'
export type { BrowserPool, LaunchOptions } from './browser/launch/launcher.ts'
export { createBrowserPool } from './browser/launch/launcher.ts'
export {
  type ArtifactSettings,
  ArtifactsError,
  ArtifactsSchema,
} from './browser/session/artifacts/artifact-settings.ts'
export { type Comparison, compareReports } from './eval/eval-report.ts'
export { secretsFromEnvironment, type TaskSecrets } from './eval/eval-secrets.ts'
export { type FixtureServer, serveFixtures } from './eval/fixture-server.ts'
export { toJUnit } from './eval/junit.ts'
export { type EvalModel, type EvalOptions, type EvalStreamEvent, runEval } from './eval/run-eval.ts'
export { type LoadedSuite, loadSuite, parseSuite, type Suite, SuiteError, SuiteSchema } from './eval/suite.ts'
export type { EvalEvent, EvalReport, EvalRun, EvalTask } from './events/eval-events.ts'
export { EvalEventSchema, EvalReportSchema } from './events/eval-events.ts'
export type { AgentEvent, AgentEventOf, DoneReason, EventType, RunResult, Usage } from './events/events.ts'
export { AgentEventSchema, eventSchemas, eventTypes } from './events/events.ts'
export { ModelConfigError, type ModelConfigErrorCode } from './model/model-errors.ts'
export {
  costOf,
  findPrice,
  loadPriceTable,
  type ModelPrice,
  PriceFileError,
  type PriceTable,
} from './model/prices.ts'
export { type ModelSettings, type ResolvedModel, resolveModel } from './model/resolve.ts'
export type { ActionDescriptor } from './recording/action-descriptor.ts'
export type { RecordingCheck } from './recording/check.ts'
export { recordingOf } from './recording/from-events.ts'
export type { PlaywrightExportOptions } from './recording/playwright.ts'
export type { ElementTarget, Expectation, RecordedStep, Recording, ReplayStats } from './recording/schema.ts'
export { RecordingSchema, recordingVersion } from './recording/schema.ts'
export type { SextantServer } from './server/server.ts'
export { startServer } from './server/server.ts'
export type { ServerOptions } from './server/server-options.ts'
export type { ProfileInfo, ProfileState, RunStore, SharedRunStore, StoredRun } from './store/open-store.ts'
export {
  MemoryRunStore,
  PostgresRunStore,
  ProfileKeyError,
  ProfileStore,
  profilesOf,
  SqliteRunStore,
} from './store/open-store.ts'
export type { AnyTool, Tool, ToolContext, ToolResult } from './tool.ts'
export { AbortError, defineTool, failed, isAbortError, ok } from './tool.ts'
export { type ArtifactStore, folderArtifacts } from './util/run-downloads.ts'
export type { WebhookSettings } from './webhooks/run-webhook.ts'
export type { WebhookAttempt, WebhookMessage } from './webhooks/webhook-message.ts'
export { WebhookTargetError } from './webhooks/webhook-target.ts'
