import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'

/**
 * A scripted agent model that reads the page view in each step's prompt and
 * answers with one action, through the AI SDK's mock model. The script is a
 * function of the page, so it can find elements by role and name.
 */

export type Decide = (page: PageReader, step: number) => Record<string, unknown>

export interface PageReader {
  text: string
  /** The stable ref of the element `- <role> "<name>" … [ref=…]`. */
  ref(role: string, name: string): string
  has(text: string): boolean
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  const user = prompt.filter((message) => message.role === 'user').at(-1)
  if (!user) return ''
  return user.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

function reader(prompt: string): PageReader {
  const text = /<page>\n([\s\S]*)\n<\/page>/.exec(prompt)?.[1] ?? ''
  const literal = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return {
    text,
    has: (needle) => text.includes(needle),
    ref(role, name) {
      const match = new RegExp(`${literal(role)} "${literal(name)}"[^\\n]*\\[ref=([^\\]\\s]+)\\]`).exec(text)
      if (!match) throw new Error(`No ${role} "${name}" in the page view:\n${text}`)
      return match[1]!
    },
  }
}

export function pageDrivenModel(decide: Decide): MockLanguageModelV4 & { prompts: string[] } {
  const prompts: string[] = []
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'page-driven',
    doStream: async (options) => {
      const prompt = lastUserText(options.prompt)
      prompts.push(prompt)
      const step = Number(/<step>Step (\d+) of/.exec(prompt)?.[1] ?? prompts.length)
      const action = decide(reader(prompt), step)
      const input = JSON.stringify({
        evaluation_previous_goal: 'Unknown',
        memory: '',
        next_goal: 'Act.',
        action,
      })
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'tool-input-start', id: 'c1', toolName: 'AgentOutput' },
        { type: 'tool-input-delta', id: 'c1', delta: input },
        { type: 'tool-input-end', id: 'c1' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'AgentOutput', input },
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: {
            inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 20, text: 20, reasoning: undefined },
          },
        },
      ]
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
  return Object.assign(model, { prompts })
}
