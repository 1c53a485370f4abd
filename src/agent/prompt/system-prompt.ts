import { readFileSync } from 'node:fs'
import type { AnyTool } from '../../tool.ts'

const systemPromptTemplate = readFileSync(new URL('./system.md', import.meta.url), 'utf8')
/** Told only to a run that has secrets (kept here rather than in a second .md, which the build would have to copy). */
const secretsTemplate = `## Secrets

This run holds secrets (passwords, codes) whose values you never see. Write a secret as its placeholder, exactly as listed below, in the \`text\` of \`type\`, and nowhere else (a placeholder in a URL, a script or any other input is refused): the browser puts the real value into the field at the last moment. Wherever a secret's value would appear (the task, the page view, results), you see its placeholder instead. Never try to read, reveal or guess a value. A secret limited to some domains can only be typed on pages of those domains.`

/** A secret as the model may know it: its name and where it may be typed, never its value. */
export interface SecretName {
  name: string
  domains?: string[]
}

/** Said only when the run shows the model its screenshots: a prompt must not describe an image it lacks. */
const visionSection = `## The screenshot

Each step also carries a screenshot of the browser's viewport as it is now (the latest only). Use it for what the page view cannot say: charts, canvas, images, icons, colours and layout. Act through the refs of the page view; the screenshot shows where things are, not how to reach them. Password fields and secrets are blanked in it.`

const labelsSentence =
  'Each element of the page view that is on screen is outlined in magenta on the screenshot, with its ref in a magenta tag at its top left corner.'

/** The system prompt: the fixed instructions, the run's secrets and screenshot when it has them, then its actions. */
export function buildSystemPrompt(
  tools: Iterable<AnyTool>,
  instructions?: string,
  options: { secrets?: SecretName[]; vision?: boolean; labels?: boolean } = {},
): string {
  const actions = [...tools].map((tool) => `- \`${tool.name}\`: ${tool.description}`).join('\n')
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
