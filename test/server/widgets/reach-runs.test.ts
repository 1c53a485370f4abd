import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { fixturesDir } from '../../browser/helpers/harness.ts'
import { actionTurn, doneTurn, type FakeTurn } from '../../support/models/fake-openai.ts'
import { startPageServer } from '../../support/page-server.ts'
import { sortablePages, sortablePaths } from '../../support/pages/sortable-pages.ts'
import { latestView, refOn } from './view-reading.ts'
import { widgetRuns } from './widget-runs.ts'

// What a person reaches in whole applications, through the HTTP API: a scripted model acting only on what
// the latest page view in its prompt shows picks refs by reading the view's lines. Gutenberg's pre-publish
// panel (its Publish button in a fixed panel above the editor's scrolling body), and items of jQuery UI
// sortable lists and grids and SortableJS lists dragged onto the item whose place they should take, and a
// dropdown menu shown under a stale aria-hidden.

const runs = widgetRuns(async () => {
  const publish = await readFile(join(fixturesDir, 'reach/publish-panel.html'), 'utf8')
  const shop = await readFile(join(fixturesDir, 'reach/stale-aria-hidden.html'), 'utf8')
  return startPageServer({
    pages: { ...(await sortablePages()), '/publish.html': publish, '/shop.html': shop },
  })
}, 6)

/** The results of the run's actions (not of its `done`), and those that failed. */
function outcome(list: AgentEvent[]): { failures: string[]; results: string[] } {
  const actions = new Set(
    list.flatMap((event) =>
      event.type === 'tool_call_start' && event.tool !== 'done' ? [event.callId] : [],
    ),
  )
  const ended = list.flatMap((event) =>
    event.type === 'tool_call_result' && actions.has(event.callId) ? [event] : [],
  )
  return {
    failures: ended.flatMap((event) => (event.ok ? [] : [event.result])),
    results: ended.map((event) => event.result),
  }
}

function succeeded(list: AgentEvent[]): void {
  expect(outcome(list).failures).toEqual([])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
}

test("Gutenberg's pre-publish panel: Publish opens it, and its own Publish button, fixed over the header, publishes", async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('is now live')) return doneTurn('The post is published.')
    const buttons = view.split('\n').filter((line) => /button "Publish" .*\[ref=/.test(line))
    // Once the panel asks, its Publish button is the last one the view lists (the header's toggle comes first).
    const chosen = view.includes('Are you ready to publish?') ? buttons.at(-1) : buttons[0]
    const ref = chosen && refOn(chosen, /button "Publish"/)
    return ref ? actionTurn('click', { ref }) : doneTurn('No Publish button in the view.', false)
  }
  const list = await runs.run('Publish the post.', '/publish.html')
  succeeded(list)
  expect(outcome(list).results).toEqual(["Clicked button 'Publish'.", "Clicked button 'Publish'."])
})

/** Moves `item` to place `place` (1-based) by dragging it onto the item the view's order line shows there. */
function moveTo(item: string, place: number): (prompt: string) => FakeTurn {
  return (prompt) => {
    const view = latestView(prompt)
    const order = /Order: (.*)/.exec(view)?.[1]?.split(', ') ?? []
    if (order.indexOf(item) === place - 1) return doneTurn(`${item} is now at place ${place}.`)
    const target = order[place - 1]
    const from = refOn(view, new RegExp(`listitem .*: ${item}(?!\\d)`))
    const onto = target && refOn(view, new RegExp(`listitem .*: ${target}(?!\\d)`))
    return from && onto ? actionTurn('drag', { ref: from, to: onto }) : doneTurn('No such items.', false)
  }
}

test.each([
  [
    'jQuery UI list, down',
    sortablePaths.jqueryList,
    'Item 3',
    7,
    "onto listitem 'Item 7': it is now 7th of 10.",
  ],
  [
    'jQuery UI grid, back a row',
    sortablePaths.jqueryGrid,
    'Item 12',
    2,
    "onto listitem 'Item 2': it is now 2nd of 15.",
  ],
  [
    'SortableJS row, left',
    sortablePaths.sortableRow,
    'Item 9',
    4,
    "onto listitem 'Item 4': it is now 4th of 10.",
  ],
] as const)(
  '%s: one drag onto the item in the wanted place, and the result says where it landed',
  async (_, path, item, place, said) => {
    runs.policy = moveTo(item, place)
    const list = await runs.run(`Move ${item} to place ${place}.`, path)
    succeeded(list)
    const { results } = outcome(list)
    expect(results).toHaveLength(1)
    expect(results[0]).toBe(`Dragged listitem '${item}'${' '}${said}`)
  },
)

test('a dropdown shown but left aria-hidden: its link is offered, marked, and opened', async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Opened: Boots')) return doneTurn('Boots are open.')
    const boots = refOn(view, /link \[aria-hidden\] .*: Boots/)
    if (boots) return actionTurn('click', { ref: boots })
    const shop = refOn(view, /Shop/)
    return shop ? actionTurn('click', { ref: shop }) : doneTurn('No Shop menu in the view.', false)
  }
  const list = await runs.run('Open Boots from the Shop menu.', '/shop.html')
  succeeded(list)
  expect(outcome(list).results).toEqual(["Clicked generic 'Shop ▾'.", "Clicked link 'Boots'."])
})
