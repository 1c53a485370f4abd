import { afterAll, beforeAll, expect, test } from 'vitest'
import { fixturesDir } from '../../browser/helpers/harness.ts'
import { libraryPage } from '../../support/bundle.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, serveFolder, startPageServer } from '../../support/page-server.ts'
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'

// Through the HTTP API, a scripted model acts only on what the page view shows it: it finds each ref
// by reading the view's lines (a kind such as [contextmenu], [dblclick], [droppable], an [icon=…]),
// never by knowing it. The page is written as careless sites are (listeners.html: no roles, no
// pointer cursor, no onclick attributes).

let fake: FakeOpenAI
let harness: Harness
let site: PageServer
let library: PageServer

interface ViewLine {
  line: string
  ref: string
}

/** The latest page view's lines that carry a ref. */
function viewLines(request: FakeRequest): { view: string; lines: ViewLine[] } {
  const text = promptText(request)
  const view = text.slice(text.lastIndexOf('URL: '))
  const lines = view.split('\n').flatMap((line) => {
    const ref = /\[ref=(\w+)\]/.exec(line)?.[1]
    return ref ? [{ line, ref }] : []
  })
  return { view, lines }
}

function find(lines: ViewLine[], ...parts: string[]): string | undefined {
  return lines.find((candidate) => parts.every((part) => candidate.line.includes(part)))?.ref
}

const tasks: Record<string, (view: string, lines: ViewLine[]) => FakeTurn> = {
  'Delete notes.txt with its right-click menu.': (view, lines) => {
    if (view.includes('Status: trash notes.txt')) return doneTurn('Deleted notes.txt.')
    const trash = find(lines, '[icon=trash]')
    if (trash) return actionTurn('click', { ref: trash })
    const item = find(lines, 'listitem', '[contextmenu]', 'notes.txt')
    return item ? actionTurn('click', { ref: item, button: 'right' }) : doneTurn('No menu.', false)
  },
  'Change the price cell Apple to Pear.': (view, lines) => {
    if (view.includes('Status: edited Pear')) return doneTurn('Changed it.')
    const field = find(lines, 'textbox "Edit cell"')
    if (field) return actionTurn('type', { ref: field, text: 'Pear', submit: true })
    const cell = find(lines, 'cell "Apple"', '[dblclick]')
    return cell ? actionTurn('click', { ref: cell, count: 2 }) : doneTurn('No cell.', false)
  },
  'Move the card to the empty column.': (view, lines) => {
    if (view.includes('Status: moved to done')) return doneTurn('Moved it.')
    const card = find(lines, '[draggable]', 'Write the report')
    // The empty column: a drop target with neither name nor text.
    const empty = lines.find((candidate) => /generic \[droppable\] \[ref=\w+\]$/.test(candidate.line))?.ref
    return card && empty ? actionTurn('drag', { ref: card, to: empty }) : doneTurn('No column.', false)
  },
  'Put Apples after Cherries in the grocery list.': (view, lines) => {
    if (/Order: Bananas, Cherries, Apples/.test(view)) return doneTurn('Reordered.')
    const apples = find(lines, 'listitem [draggable]', 'Apples')
    const cherries = find(lines, 'listitem [draggable]', 'Cherries')
    return apples && cherries
      ? actionTurn('drag', { ref: apples, to: cherries })
      : doneTurn('No items.', false)
  },
  'Drop the parcel in the bin.': (view, lines) => {
    if (view.includes('Status: dropped parcel')) return doneTurn('Dropped it.')
    const parcel = find(lines, '[draggable]', 'Parcel')
    const bin = find(lines, '[droppable]', 'Drop parcels here')
    return parcel && bin ? actionTurn('drag', { ref: parcel, to: bin }) : doneTurn('No bin.', false)
  },
}

function model(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  const task = Object.keys(tasks).find((candidate) => text.includes(candidate))
  if (!task) return doneTurn('Unknown task.', false)
  const { view, lines } = viewLines(request)
  return tasks[task]?.(view, lines) ?? doneTurn('Unknown task.', false)
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: model })
  site = await serveFolder(fixturesDir)
  // SortableJS, bundled from the dev dependency: a real library no one here wrote.
  const html = await libraryPage({ entry: 'sortable-list.js', title: 'Groceries' })
  library = await startPageServer({ pages: { '/': html } })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await site?.close()
  await library?.close()
  await fake?.close()
})

test.each(Object.keys(tasks))('%s', async (task) => {
  const startUrl = task.includes('grocery') ? `${library.url}/` : `${site.url}/listeners.html`
  const response = await postRun(harness.url, { task, startUrl, maxTurns: 6 })
  const list = events(await readSse(response))
  const failures = list.flatMap((event) =>
    event.type === 'tool_call_result' && !event.ok ? [event.result ?? ''] : [],
  )
  expect(failures).toEqual([])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
})
