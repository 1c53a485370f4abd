import { readFileSync } from 'node:fs'
import type { AnyTool } from '../../tool.ts'

const systemPromptTemplate = readFileSync(new URL('./system.md', import.meta.url), 'utf8')

/** Said only when the run shows the model its screenshots: a prompt must not describe an image it lacks. */
const visionSection = `## The screenshot

Each step also carries a screenshot of the browser's viewport as it is now (the latest only). Use it for what the page view cannot say: charts, canvas, images, icons, colours and layout. Act through the refs of the page view; the screenshot shows where things are, not how to reach them. Password fields and secrets are blanked in it.`

const labelsSentence =
  'Each element of the page view that is on screen is outlined in magenta on the screenshot, with its ref in a magenta tag at its top left corner.'

/** The system prompt: the fixed instructions, then the actions this run offers. */
export function buildSystemPrompt(
  tools: Iterable<AnyTool>,
  instructions?: string,
  options: { vision?: boolean; labels?: boolean } = {},
): string {
  const actions = [...tools].map((tool) => `- \`${tool.name}\`: ${tool.description}`).join('\n')
  const labels = options.labels ? ` ${labelsSentence}` : ''
  const vision = options.vision ? `\n\n${visionSection}${labels}` : ''
  const extra = instructions ? `\n\n## Instructions for this run\n\n${instructions.trim()}` : ''
  return `${systemPromptTemplate.trim()}${vision}\n\n## Actions\n\n${actions}${extra}\n`
}
