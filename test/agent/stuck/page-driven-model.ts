import { agentOutput, refOf, type ScriptedModel, scriptedModel } from '../../support/models/scripted-model.ts'

/**
 * A scripted agent model that reads the page view in each step's prompt and
 * answers with one action. The script is a function of the page, so it can
 * find elements by role and name.
 */

export type Decide = (page: PageReader, step: number) => Record<string, unknown>

export interface PageReader {
  text: string
  /** The stable ref of the element `- <role> "<name>" … [ref=…]`. */
  ref(role: string, name: string): string
  has(text: string): boolean
}

function reader(prompt: string): PageReader {
  const text = /<page>\n([\s\S]*)\n<\/page>/.exec(prompt)?.[1] ?? ''
  return { text, has: (needle) => text.includes(needle), ref: (role, name) => refOf(text, role, name) }
}

export function pageDrivenModel(decide: Decide): ScriptedModel & { prompts: string[] } {
  const prompts: string[] = []
  const model = scriptedModel([], {
    afterScript: (prompt) => {
      prompts.push(prompt)
      const step = Number(/<step>Step (\d+) of/.exec(prompt)?.[1] ?? prompts.length)
      return { output: agentOutput(decide(reader(prompt), step), '', 'Act.') }
    },
  })
  return Object.assign(model, { prompts })
}
