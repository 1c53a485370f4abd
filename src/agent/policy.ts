import type { AnyTool } from '../tool.ts'

/**
 * Which calls run, which need the user's approval, and which are refused.
 * Rules are checked in order and the first match wins; with no match, the
 * tool's own `requiresConfirmation` decides.
 */

export type PolicyDecision = 'allow' | 'confirm' | 'deny'

export interface PolicyRule {
  /** A tool name, a pattern over tool names, or '*' for every tool. */
  tool: string | RegExp
  /** Narrows the rule to calls whose input matches. */
  when?: (input: unknown) => boolean
  decision: PolicyDecision
  /** Shown to the user (confirm) or the model (deny). */
  reason?: string
}

export interface PolicyVerdict {
  decision: PolicyDecision
  reason: string
}

export function decide(rules: PolicyRule[], tool: AnyTool, input: unknown): PolicyVerdict {
  for (const rule of rules) {
    if (!matchesTool(rule.tool, tool.name)) continue
    if (rule.when && !rule.when(input)) continue
    return { decision: rule.decision, reason: rule.reason ?? defaultReason(rule.decision, tool.name) }
  }
  const needsConfirmation =
    typeof tool.requiresConfirmation === 'function'
      ? tool.requiresConfirmation(input)
      : tool.requiresConfirmation
  return needsConfirmation
    ? { decision: 'confirm', reason: `${tool.name} requires confirmation.` }
    : { decision: 'allow', reason: '' }
}

function matchesTool(pattern: string | RegExp, name: string): boolean {
  if (pattern === '*') return true
  return typeof pattern === 'string' ? pattern === name : pattern.test(name)
}

function defaultReason(decision: PolicyDecision, tool: string): string {
  if (decision === 'deny') return `${tool} is not allowed by this run's policy.`
  if (decision === 'confirm') return `This run's policy asks for confirmation before ${tool}.`
  return ''
}
