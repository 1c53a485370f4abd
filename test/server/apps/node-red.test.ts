import { expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { type NodeRed, startNodeRed, tickFlows } from '../../support/apps/node-red.ts'
import { actionTurn, doneTurn } from '../../support/models/fake-openai.ts'
import { latestView, refHolding, refOn } from '../widgets/view-reading.ts'
import { widgetRuns } from '../widgets/widget-runs.ts'

// Node-RED's flow editor (npm `node-red`, run in its own process), through the HTTP API: a scripted model
// acting only on what the latest page view shows finds a node on the SVG canvas by its label, double-clicks
// it, renames it in the edit tray and deploys; Node-RED's own admin API says what was saved.

let red: NodeRed | undefined
const runs = widgetRuns(async () => {
  red = await startNodeRed(tickFlows)
  return red
}, 12)

function actions(list: AgentEvent[]): { failures: string[]; tools: string[] } {
  const started = list.flatMap((event) => (event.type === 'tool_call_start' ? [event] : []))
  const ended = list.flatMap((event) =>
    event.type === 'tool_call_result' && !event.ok ? [event.result] : [],
  )
  return { failures: ended, tools: started.map((event) => event.tool) }
}

test("a Node-RED node: double-clicked by its label's ref, renamed in its tray, and deployed", async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (/Successfully deployed/.test(view)) return doneTurn('Renamed the inject node and deployed.')
    const name = refOn(view, /textbox "[^"\w]*Name"/)
    if (name && !view.includes('Morning tick')) return actionTurn('type', { ref: name, text: 'Morning tick' })
    const done = refOn(view, /button "Done"/)
    if (name && done) return actionTurn('click', { ref: done })
    const deploy = refOn(view, /link "Deploy"/)
    if (refHolding(view, 'Morning tick') && deploy) return actionTurn('click', { ref: deploy })
    const node = refHolding(view, 'Tick')
    // The editor draws its canvas once it has loaded its nodes' definitions: a model waits for it.
    return node ? actionTurn('click', { ref: node, count: 2 }) : actionTurn('wait', { seconds: 1 })
  }
  const list = await runs.run('Rename the inject node Tick to "Morning tick" and deploy.', '/')
  expect(actions(list).failures).toEqual([])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
  expect(actions(list).tools.filter((tool) => tool !== 'wait')).toEqual([
    'click',
    'type',
    'click',
    'click',
    'done',
  ])
  const saved = await red?.flows()
  expect(saved?.find((node) => node.id === 'inject1')).toMatchObject({ type: 'inject', name: 'Morning tick' })
}, 120_000)

test("find on a Node-RED node's label answers with the node's own ref", async () => {
  const seen: { found?: string; node?: string | undefined } = {}
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    const found = /Found \d+ elements? containing "Show":\n(?:- [^\n]*\n?)+/.exec(prompt)?.[0]
    if (!refHolding(view, 'Show')) return actionTurn('wait', { seconds: 1 })
    if (!found) return actionTurn('find', { text: 'Show' })
    seen.found = found
    seen.node = refHolding(view, 'Show')
    return doneTurn('Found it.')
  }
  const list = await runs.run('Find the debug node Show.', '/')
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  expect(seen.node, 'the node has a ref in the view').toBeDefined()
  // The node itself comes first, before the canvas that holds it and every other node.
  expect(seen.found?.split('\n')[1]).toContain(`[ref=${seen.node}]`)
}, 120_000)
