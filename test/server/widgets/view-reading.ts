import { type FakeOpenAI, promptText } from '../../support/models/fake-openai.ts'

// How the widget tests' scripted models read a prompt as a model would: the latest page view in it, and
// a ref off the line that names what they want. They never know a ref in advance.

/** The latest page view in a prompt (its header's URL line; a page's own "Visit URL:" text is no header). */
export function latestView(prompt: string): string {
  return prompt.slice(prompt.lastIndexOf('URL: http'))
}

/** The ref of the first line of the view that holds `match`; `fresh`: only a line marked new (`*`). */
export function refOn(view: string, match: string | RegExp, fresh = false): string | undefined {
  for (const line of view.split('\n')) {
    const holds = typeof match === 'string' ? line.includes(match) : match.test(line)
    if (!holds || (fresh && !/^ *\* /.test(line))) continue
    const ref = /\[ref=([^\]]+)\]/.exec(line)?.[1]
    if (ref) return ref
  }
  return undefined
}

/** The ref of the line that holds `label` as its text: its own, or the nearest line above its text line, less indented. */
export function refHolding(view: string, label: string): string | undefined {
  const lines = view.split('\n')
  const own = lines.find((line) => line.endsWith(`: ${label}`) && line.includes('[ref='))
  if (own) return /\[ref=(\w+)\]/.exec(own)?.[1]
  const at = lines.findIndex((line) => /^[-*] text: (.*)$/.exec(line.trim())?.[1] === label)
  const indent = (line: string) => line.length - line.trimStart().length
  for (let index = at - 1; at >= 0 && index >= 0; index--) {
    const line = lines[index] ?? ''
    if (indent(line) >= indent(lines[at] ?? '')) continue
    return /\[ref=(\w+)\]/.exec(line)?.[1]
  }
  return undefined
}

/** How many times the model was asked about the task, this request included (the fake records it first). */
export function timesAsked(fake: FakeOpenAI, task: string): number {
  return fake.requests.filter((each) => promptText(each).includes(task)).length
}
