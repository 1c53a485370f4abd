import { readFileSync } from 'node:fs'
import type { AnyTool } from '../../tool.ts'

const systemPromptTemplate = readFileSync(new URL('./system.md', import.meta.url), 'utf8')
/** Told only to a run that has secrets (kept here rather than in a second .md, which the build would have to copy). */
const secretsTemplate = `## Secrets

This run holds secrets (passwords, codes) whose values you never see. To enter one, write its placeholder, exactly as listed below, in the \`text\` of \`type\` and nowhere else (a placeholder in any other input is refused); the browser types the real value. Where a value would appear (task, page view, results) you see its placeholder. Never try to read, reveal or guess a value. A secret limited to some domains can only be typed on their pages.`

/** A secret as the model may know it: its name and where it may be typed, never its value. */
export interface SecretName {
  name: string
  domains?: string[]
}

/** Said only when the run shows the model its screenshots: a prompt must not describe an image it lacks. */
const visionSection = `## The screenshot

Each step also carries a screenshot of the viewport (the latest only), for what the page view cannot say: charts, canvas, images, icons, colours, layout. Act through the page view's refs; the screenshot shows where things are. Password fields and secrets are blanked in it.`

const labelsSentence =
  'Each on-screen element of the page view is outlined in magenta on it, with its ref in a magenta tag at its top left.'

/** The system prompt: the fixed instructions, the run's secrets and screenshot when it has them, then its actions. */
export function buildSystemPrompt(
  tools: Iterable<AnyTool>,
  instructions?: string,
  options: { secrets?: SecretName[]; vision?: boolean; labels?: boolean } = {},
): string {
  const actions = [...tools].map((tool) => `- ${tool.name}: ${tool.description}`).join('\n')
  const labels = options.labels ? ` ${labelsSentence}` : ''
  const vision = options.vision ? `\n\n${visionSection}${labels}` : ''
  const extra = instructions ? `\n\n## Instructions for this run\n\n${instructions.trim()}` : ''
  return `${systemPromptTemplate.trim()}${secretsSection(options.secrets ?? [])}${vision}\n\n## Actions\n\n${actions}${extra}\n`
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
