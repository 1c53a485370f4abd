import { readFileSync } from 'node:fs'
import type { AnyTool } from '../../tool.ts'

const systemPromptTemplate = readFileSync(new URL('./system.md', import.meta.url), 'utf8')
/** Told only to a run that has secrets (kept here rather than in a second .md, which the build would have to copy). */
const secretsTemplate = `## Secrets

This run holds secrets (passwords, codes) whose values you never see. Write a secret as its placeholder, exactly as listed below, in the \`text\` of \`type\` (or inside the \`script\` of \`execute_javascript\`): the browser puts the real value in at the last moment. Wherever a secret's value would appear (the task, the page view, results), you see its placeholder instead. Never try to read, reveal or guess a value. A secret limited to some domains can only be typed on pages of those domains.`

/** A secret as the model may know it: its name and where it may be typed, never its value. */
export interface SecretName {
  name: string
  domains?: string[]
}

/** The system prompt: the fixed instructions, the run's secrets when it has any, then the actions it offers. */
export function buildSystemPrompt(
  tools: Iterable<AnyTool>,
  instructions?: string,
  secrets: SecretName[] = [],
): string {
  const actions = [...tools].map((tool) => `- \`${tool.name}\`: ${tool.description}`).join('\n')
  const extra = instructions ? `\n\n## Instructions for this run\n\n${instructions.trim()}` : ''
  return `${systemPromptTemplate.trim()}${secretsSection(secrets)}\n\n## Actions\n\n${actions}${extra}\n`
}

function secretsSection(secrets: SecretName[]): string {
  if (secrets.length === 0) return ''
  const list = secrets
    .map(({ name, domains }) => {
      const where = domains ? ` (only on ${domains.join(', ')})` : ''
      return `- \`<secret>${name}</secret>\`${where}`
    })
    .join('\n')
  return `\n\n${secretsTemplate.trim()}\n\n${list}`
}
