import { z } from 'zod'
import { type ActionDescriptor, stringField } from '../../recording/action-descriptor.ts'
import { oneLine } from '../../recording/spec-text.ts'
import { defineTool } from '../../tool.ts'
import { embeddedSchemaMarker } from '../output/embedded-schema.ts'
import type { ResolvedOutput } from '../output/output-schema.ts'

export const doneAction: ActionDescriptor = {
  name: 'done',
  description:
    'Finish: `text` holds the answer or what was achieved, with any data the task asked for; `success`: whether the task was done.',
  effect: null,
  docs: {
    input: '`{ text, success, data? }`',
    does: 'ends the run; `data` is required and validated when the run has an `output` schema',
  },
  stuck: 'changes',
  record: { element: 'none', outcome: false },
  playwright: ({ input }) => [`// The run's result: ${oneLine(stringField(input, 'text'))}`],
}

const description = doneAction.description

/**
 * The done action. With an output schema its input gains `data`, shown to the
 * model with the schema; it is parsed as anything here, so that data which
 * does not match reaches the run's check (and the model reads why) instead of
 * being rejected as unusable output.
 */
export function createDoneTool(output: ResolvedOutput | undefined) {
  const base = { text: z.string(), success: z.boolean() }
  if (!output) {
    return defineTool({
      name: doneAction.name,
      description,
      input: z.object(base),
      async execute(input) {
        return { ok: true, text: input.text, final: { success: input.success, text: input.text } }
      },
    })
  }
  const shown = typeof output.jsonSchema.description === 'string' ? ` ${output.jsonSchema.description}` : ''
  const data = z
    .unknown()
    .optional()
    .meta({
      ...output.jsonSchema,
      // Its definitions and references are moved to the document's root when the step schema is built.
      [embeddedSchemaMarker]: true,
      description: `Validated against this schema and read by the program that started the run instead of your text. Required when success is true.${shown}`,
    })
  return defineTool({
    name: doneAction.name,
    description: `${description} \`data\`: the result as its schema says.`,
    input: z.object({ ...base, data }),
    async execute(input) {
      const final = { success: input.success, text: input.text }
      return {
        ok: true,
        text: input.text,
        final: input.data === undefined ? final : { ...final, data: input.data },
      }
    },
  })
}
