import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { agentOutput, type FakeRequest, type FakeTurn } from './models/fake-openai.ts'
import { type PageServer, serveFolder } from './page-server.ts'

/**
 * The TodoMVC flow the replay tests and bench record: add a todo (the
 * `{{todo}}` variable) and "Walk dog", complete the first, clear completed,
 * report. The model behind it reads the page view of each request and acts
 * on what it shows, as a real model would; it also redoes the flow on the
 * changed app (the "Clear completed" button renamed "Remove finished").
 */

export const todoTask =
  'Add the todos "{{todo}}" and "Walk dog", mark "{{todo}}" done, then clear completed todos.'

const examples = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples')

/** The vanillajs app; `changed` renames the Clear completed button (text and id) and inserts a search field before the input. */
export async function serveTodoApp(
  variant: 'original' | 'changed',
): Promise<PageServer & { appUrl: string }> {
  if (variant === 'original') {
    const server = await serveFolder(examples)
    return { ...server, appUrl: `${server.url}/vanillajs/index.html` }
  }
  const root = mkdtempSync(join(tmpdir(), 'sextant-todo-'))
  cpSync(join(examples, 'vanillajs'), join(root, 'vanillajs'), { recursive: true, dereference: true })
  const edit = (file: string, from: string, to: string) => {
    const path = join(root, 'vanillajs', file)
    const text = readFileSync(path, 'utf8')
    if (!text.includes(from)) throw new Error(`${file} has no ${from}`)
    writeFileSync(path, text.replaceAll(from, to))
  }
  edit(
    'index.html',
    '<button id="clear-completed">Clear completed</button>',
    '<button id="remove-finished">Remove finished</button>',
  )
  edit(
    'index.html',
    '<input id="new-todo"',
    '<input id="search" placeholder="Search todos">\n<input id="new-todo"',
  )
  edit('bower_components/todomvc-common/base.css', '#clear-completed', '#remove-finished')
  edit('js/view.js', "qs('#clear-completed')", "qs('#remove-finished')")
  edit('js/template.js', "'Clear completed ('", "'Remove finished ('")
  const server = await serveFolder(root)
  return {
    ...server,
    appUrl: `${server.url}/vanillajs/index.html`,
    close: async () => {
      await server.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** The page view in the latest user message of a request. */
export function latestView(request: FakeRequest): string {
  const last = request.body.messages.at(-1)
  const content = last?.content
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((part: { text?: string }) => (typeof part.text === 'string' ? part.text : ''))
      .join('\n')
  return ''
}

/** The next action of the flow for what the page shows now. */
export function todoTurn(view: string, todo: string, delayMs = 0): FakeTurn {
  const turn = (action: Record<string, unknown>, goal: string): FakeTurn => ({
    output: agentOutput(action, goal),
    ...(delayMs ? { delayMs } : {}),
  })
  // The history says the flow is through: report (a real model would remember it too).
  if (/Clicked button '(?:Clear completed|Remove finished)/.test(view))
    return turn(
      { done: { text: `Added ${todo} and Walk dog; ${todo} was done and cleared.`, success: true } },
      'Report.',
    )
  const input = refIn(view, /textbox "What needs to be done\?"[^\n]*\[ref=([\w-]+)\]/)
  if (!view.includes(`text: ${todo}`) && input)
    return turn({ type: { ref: input, text: todo, submit: true } }, `Add the todo ${todo}.`)
  if (!view.includes('text: Walk dog') && input)
    return turn({ type: { ref: input, text: 'Walk dog', submit: true } }, 'Add the todo Walk dog.')
  const box = checkboxBefore(view, todo)
  if (box && !box.checked) return turn({ click: { ref: box.ref } }, `Mark ${todo} as done.`)
  const clear = refIn(view, /button "(?:Clear completed|Remove finished)[^"]*"[^\n]*\[ref=([\w-]+)\]/)
  if (clear) return turn({ click: { ref: clear } }, 'Clear the completed todos.')
  return turn(
    { done: { text: `Could not finish: nothing left to do on ${todo}.`, success: false } },
    'Report.',
  )
}

function refIn(view: string, pattern: RegExp): string | undefined {
  return pattern.exec(view)?.[1]
}

/** The checkbox line right above a todo's text. */
function checkboxBefore(view: string, todo: string): { ref: string; checked: boolean } | undefined {
  const lines = view.split('\n')
  const at = lines.findIndex((line) => line.trim().endsWith(`text: ${todo}`))
  for (let i = at - 1; i >= 0 && at >= 0; i--) {
    const match = /checkbox[^\n]*\[ref=([\w-]+)\]/.exec(lines[i] ?? '')
    if (match?.[1]) return { ref: match[1], checked: (lines[i] ?? '').includes('[checked]') }
  }
  return undefined
}
