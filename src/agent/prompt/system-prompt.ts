import { readFileSync } from 'node:fs'
import type { AnyTool } from '../../tool.ts'

const systemPromptTemplate = readFileSync(new URL('./system.md', import.meta.url), 'utf8')

/** The system prompt: the fixed instructions, then the actions this run offers. */
export function buildSystemPrompt(tools: Iterable<AnyTool>, instructions?: string): string {
  const actions = [...tools].map((tool) => `- \`${tool.name}\`: ${tool.description}`).join('\n')
  const extra = instructions ? `\n\n## Instructions for this run\n\n${instructions.trim()}` : ''
  return `${systemPromptTemplate.trim()}\n\n## Actions\n\n${actions}${extra}\n`
}
