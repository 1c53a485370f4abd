import type { Usage } from '../../events/events.ts'
import type { AgentOutput } from '../output/output.ts'

// Apart from run-context.ts: the stuck detectors read a run's steps, and the run's context holds its detector.

/** One step: what the model saw, thought, did, and what happened. */
export interface StepRecord {
  step: number
  url: string
  fingerprint: string
  output?: AgentOutput
  action?: { tool: string; input: unknown }
  result?: { ok: boolean; text: string }
  usage?: Usage
}
