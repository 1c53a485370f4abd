import { expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { fixturesDir } from '../../browser/helpers/harness.ts'
import { actionTurn, doneTurn, promptText } from '../../support/models/fake-openai.ts'
import { serveFolder } from '../../support/page-server.ts'
import { latestView, refOn } from './view-reading.ts'
import { widgetRuns } from './widget-runs.ts'

// A scrolling panel's unseen part, through the HTTP API: a feed of 40 posts in a fixed-height panel on a
// careless page (no roles, no cursors, the Like buttons plain spans with listeners added by script). The
// scripted model acts only on what the latest page view in its prompt shows: it reads which panel's summary
// names the user it wants, scrolls that panel by the ref on its line, and likes the post once it is shown.

const runs = widgetRuns(() => serveFolder(fixturesDir), 8)
const task = "Like @quinn_harper's post in the feed."

test("the feed's summary names the user below its fold; the panel is scrolled by its ref and the post liked", async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes("Liked @quinn_harper's post")) return doneTurn('Liked it.')
    const lines = view.split('\n')
    // On screen, a post is its text line, then its Like.
    const post = lines.findIndex((line) => /^\s*[-*] text: @quinn_harper /.test(line))
    const like = post >= 0 ? refOn(lines[post + 1] ?? '', 'generic "Like"') : undefined
    if (like) return actionTurn('click', { ref: like })
    // Off screen, a panel's line says on which side of its fold the user's post lies.
    const side = /\[scrollable\] \[[^\n]*just (above|below): [^\n\]]*@quinn_harper/.exec(view)?.[1]
    const panel = refOn(view, /\[scrollable\] \[[^\n]*@quinn_harper/)
    if (side && panel)
      return actionTurn('scroll', { direction: side === 'above' ? 'up' : 'down', ref: panel })
    return doneTurn('No post or panel naming @quinn_harper in the view.', false)
  }
  const list: AgentEvent[] = await runs.run(task, '/reach/panels.html')
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
  const calls = list.flatMap((event) => (event.type === 'tool_call_start' ? [event] : []))
  expect(calls.map((call) => call.tool)).toEqual(['scroll', 'click', 'done'])
  expect(calls[0]?.input).toMatchObject({ direction: 'down' })
  // The page said so: the model was last shown the page after the click, with the like recorded on it.
  const asked = runs.fake.requests.map(promptText).filter((prompt) => prompt.includes(task))
  expect(latestView(asked.at(-1) ?? '')).toContain("Liked @quinn_harper's post")
})
