/**
 * Stuck detection and recovery: pure detectors over a run's trace, an
 * escalation state machine, recovery strategies and a supervisor.
 */

export {
  countFailures,
  type Detection,
  detectAll,
  detectErrorBudget,
  detectLoops,
  detectOscillation,
  detectRepeatedAction,
  detectStall,
  detectUrlCycle,
} from './detectors/index.ts'
export {
  type EscalationAction,
  type EscalationOptions,
  type EscalationState,
  escalate,
  initialEscalation,
} from './escalation.ts'
export { actionKey, normalizeUrl } from './normalize.ts'
export {
  defaultStuckOptions,
  errorBudget,
  pageViewShowsLoading,
  type RecoveryStrategy,
  recoveryStrategies,
  resolveStuckOptions,
  type StuckOptions,
} from './options.ts'
export { lastProgressUrl, planRecovery, type RecoveryPlan } from './recovery.ts'
export { firstDetections, type RecordedTrace, type ReplayStep, replay } from './replay.ts'
export { createStuckDetector } from './stuck-monitor.ts'
export {
  consultSupervisor,
  type SupervisorAnswer,
  SupervisorDecisionSchema,
  supervisorPrompt,
} from './supervisor.ts'
export type { Trace, TraceAction, TracePage, TraceStep, Transition } from './trace.ts'
export type { StuckDetector, StuckInput, StuckVerdict } from './types.ts'
