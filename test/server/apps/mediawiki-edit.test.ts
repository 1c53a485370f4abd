import { describe, expect, test } from 'vitest'
import { hasMediaWiki, startMediaWiki } from '../../support/apps/mediawiki.ts'
import { actionTurn, doneTurn, type FakeTurn } from '../../support/models/fake-openai.ts'
import { refOn } from '../widgets/view-reading.ts'
import { actionResults, appRuns } from './app-runs.ts'

// Issue #44's wiki: Debian's MediaWiki 1.39 on SQLite, driven through the HTTP API by a scripted model
// that acts only on the latest page view in its prompt: it edits the main page as an anonymous visitor,
// with a summary, and saves it.

const runs = appRuns(startMediaWiki, 12)

function click(view: string, line: RegExp): FakeTurn {
  const ref = refOn(view, line)
  return ref ? actionTurn('click', { ref }) : doneTurn(`No ${line} in the view.`, false)
}

describe.skipIf(!hasMediaWiki())('MediaWiki 1.39 from Debian, through the HTTP API', () => {
  test('the main page is edited in the wikitext editor, with a summary, and saved', async () => {
    const text = "'''Sextant''' reads this wiki one observed step at a time."
    const summary = 'Say what this wiki is for'
    runs.policy = (view) => {
      if (view.includes('Title: Main Page') || view.includes('Title: Sextant Wiki')) {
        // Saved: the page shows the new text (the wikitext's bold marks rendered away).
        if (view.includes('reads this wiki one observed step at a time'))
          return doneTurn('The page is saved.')
        return click(view, /link "Edit" \[url=[^\]]*action=edit\]/)
      }
      if (!view.includes('Title: Editing Main Page')) return doneTurn('Not on the edit page.', false)
      const source = refOn(view, /textbox "Wikitext source editor"/)
      if (source && !view.includes(`: ${text}`)) return actionTurn('type', { ref: source, text })
      const summaryBox = refOn(view, /textbox "Summary:"/)
      if (
        summaryBox &&
        !view.split('\n').some((line) => line.includes('textbox "Summary:"') && line.endsWith(`: ${summary}`))
      )
        return actionTurn('type', { ref: summaryBox, text: summary })
      // The save button may sit below the fold of the edit page, as the window's height has it.
      const save = refOn(view, /button "Save changes"/)
      return save ? actionTurn('click', { ref: save }) : actionTurn('scroll', { direction: 'down' })
    }
    const list = await runs.run(
      'Rewrite the main page to say what this wiki is for.',
      '/index.php?title=Main_Page',
    )

    // A scroll to reach the save button depends on the window's height, not on the task.
    const results = actionResults(list).filter((each) => !each.result.startsWith('Scrolled'))
    expect(results).toEqual([
      { ok: true, result: "Clicked link 'Edit'." },
      { ok: true, result: expect.stringMatching(/^Typed .* into textbox 'Wikitext source editor'\.$/) },
      { ok: true, result: `Typed "${summary}" into textbox 'Summary:'.` },
      { ok: true, result: "Clicked button 'Save changes'." },
    ])
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    // The wiki itself says so: its latest revision of the page holds the text and the summary.
    const answer = await runs.app.api<{
      query: { pages: { revisions: { comment: string; slots: { main: { content: string } } }[] }[] }
    }>({
      action: 'query',
      prop: 'revisions',
      titles: 'Main Page',
      rvprop: 'content|comment',
      rvslots: 'main',
    })
    const revision = answer.query.pages[0]?.revisions[0]
    expect(revision?.slots.main.content).toBe(text)
    expect(revision?.comment).toBe(summary)
  }, 180_000)
})
