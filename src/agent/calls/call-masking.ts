import { maskFields, redactInput } from '../../redact.ts'
import type { AnyTool } from '../../tool.ts'
import type { PendingCall } from '../run/run-state.ts'

/** A call's input as events show it: secret keys redacted, fields the tool says are sensitive masked. */
export function shownInput(call: PendingCall, tool: AnyTool | undefined): unknown {
  // A field that holds only secret placeholders shows nothing secret: kept, so a recording can replay it.
  const input = call.input as Record<string, unknown> | undefined
  const masked = sensitiveFields(call, tool).filter((field) => !onlyPlaceholders(input?.[field]))
  return redactInput(maskFields(call.input, masked))
}

function onlyPlaceholders(value: unknown): boolean {
  return typeof value === 'string' && /^(?:\s*<secret>\s*[\w.-]+\s*<\/secret>\s*)+$/.test(value)
}

export function sensitiveFields(call: PendingCall, tool: AnyTool | undefined): string[] {
  try {
    return tool?.maskInput?.(call.input) ?? []
  } catch {
    return []
  }
}
