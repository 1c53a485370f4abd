import type { AnyTool, ToolEffect } from '../../tool.ts'

/**
 * Which calls run, which need the user's approval, and which are refused.
 * Rules are checked in order and the first match wins; with no match, the
 * tool's own `requiresConfirmation` decides.
 */

export type PolicyDecision = 'allow' | 'confirm' | 'deny'

interface RuleOutcome {
  /** Narrows the rule to calls whose input matches. */
  when?: (input: unknown) => boolean
  decision: PolicyDecision
  /** Shown to the user (confirm) or the model (deny). */
  reason?: string
}

/**
 * A rule names the tools it covers by name, by declared effect, or both (then
 * a tool must match both): `{ effect: 'destructive', decision: 'confirm' }`
 * asks before every action that may change a page or a site.
 */
export type PolicyRule = RuleOutcome &
  (
    | {
        /** A tool name, a pattern over tool names, or '*' for every tool. */
        tool: string | RegExp
        /** Only tools that declare this effect; tools that declare none never match. */
        effect?: ToolEffect
      }
    | { tool?: string | RegExp; effect: ToolEffect }
  )

export interface PolicyVerdict {
  decision: PolicyDecision
  reason: string
}

export function decide(rules: PolicyRule[], tool: AnyTool, input: unknown): PolicyVerdict {
  for (const rule of rules) {
    if (rule.tool !== undefined && !matchesTool(rule.tool, tool.name)) continue
    if (rule.effect !== undefined && rule.effect !== tool.effect) continue
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
