import { expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { actionTurn, doneTurn, type FakeTurn, promptText } from '../../support/models/fake-openai.ts'
import { startWidgetPages, widgetPaths } from '../../support/widget-pages.ts'
import { latestView, refOn } from './view-reading.ts'
import { widgetRuns } from './widget-runs.ts'

// Widgets that scroll their own content, through the HTTP API: a scripted model that acts only on what
// the latest page view (or the last result) in its prompt shows, as a model would, picks refs by reading
// the view's lines. Real Chromium, real libraries (react-select, Radix UI Select, AG Grid, react-window).

const runs = widgetRuns(startWidgetPages, 12)

function succeeded(list: AgentEvent[]): void {
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
}

/** Picks "Raspberry" from a list that shows a few options at a time: open, scroll the list, click. */
function pickRaspberry(opener?: RegExp): (prompt: string) => FakeTurn {
  return (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Chosen: Raspberry')) return doneTurn('Raspberry is chosen.')
    const option = refOn(view, /option "Raspberry"/)
    if (option) return actionTurn('click', { ref: option })
    const list = refOn(view, /^\s*[-*] listbox/)
    if (list) return actionTurn('scroll', { direction: 'down', ref: list })
    const open = opener ? refOn(view, opener) : undefined
    if (open) return actionTurn('click', { ref: open })
    return doneTurn('No list in the view.', false)
  }
}

test('a careless listbox whose 28 options scroll in a plain div: scrolled by its ref, the last one picked', async () => {
  runs.policy = pickRaspberry()
  const list = await runs.run('Pick Raspberry from the fruit list.', widgetPaths.fruitList)
  succeeded(list)
  const scrolls = list.filter((event) => event.type === 'tool_call_start' && event.tool === 'scroll')
  expect(scrolls.length).toBeGreaterThan(0)
})

test("react-select's menu: opened, scrolled, Raspberry picked", async () => {
  runs.policy = pickRaspberry(/combobox "Fruit"/)
  succeeded(await runs.run('Choose Raspberry in the fruit select.', widgetPaths.reactSelect))
})

test('Radix Select: opened, its list scrolled to its end, Vietnam picked by the ref the view gives it', async () => {
  const clicked: string[] = []
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Ships to: Vietnam')) return doneTurn('Vietnam is chosen.')
    const option = refOn(view, /option "Vietnam"/)
    if (option) {
      clicked.push(option)
      return actionTurn('click', { ref: option })
    }
    const list = refOn(view, /^\s*[-*] listbox/)
    if (list) return actionTurn('scroll', { direction: 'down', ref: list })
    const open = refOn(view, /combobox "Country"/)
    if (open) return actionTurn('click', { ref: open })
    return doneTurn('No select in the view.', false)
  }
  const list = await runs.run('Ship to Vietnam: pick it in the country select.', widgetPaths.radixSelect)
  succeeded(list)
  const scrolls = list.filter((event) => event.type === 'tool_call_start' && event.tool === 'scroll')
  expect(scrolls.length).toBeGreaterThan(0)
  expect(clicked).toHaveLength(1)
  // The page's own text, as the last view the model read showed it: Radix's value is Vietnam.
  const last = runs.fake.requests.at(-1)
  expect(last && latestView(promptText(last))).toMatch(/paragraph: Ships to: Vietnam/)
})

test('AG Grid: a cell double-clicked into its editor, typed into, and saved', async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Saved: name of 3 = Ada')) return doneTurn('Customer 3 is renamed.')
    const editor = refOn(view, /textbox "Input Editor"/)
    if (editor) return actionTurn('type', { ref: editor, text: 'Ada', submit: true })
    const cell = refOn(view, /gridcell "Customer 3"/)
    if (cell) return actionTurn('click', { ref: cell, count: 2 })
    return doneTurn('No cell for Customer 3 in the view.', false)
  }
  succeeded(await runs.run('Rename Customer 3 to Ada in the grid.', widgetPaths.agGrid))
})

test('react-window: find reaches a row the virtualized list has not rendered, and it is opened', async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Opened: Invoice #01234')) return doneTurn('Invoice #01234 is open.')
    const row = refOn(view, /Invoice #01234/)
    if (row) return actionTurn('click', { ref: row })
    // The last result in the prompt: find's answer lists the row with its ref.
    const found = /Found [^\n]*Invoice #01234[\s\S]*?\[ref=(\w+)\]/.exec(
      prompt.slice(0, prompt.lastIndexOf('URL:')),
    )
    if (found?.[1]) return actionTurn('click', { ref: found[1] })
    return actionTurn('find', { text: 'Invoice #01234' })
  }
  succeeded(await runs.run('Open invoice #01234.', widgetPaths.reactWindow))
})
