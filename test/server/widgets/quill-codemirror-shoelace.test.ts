import { expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { actionTurn, doneTurn, promptText } from '../../support/models/fake-openai.ts'
import { reachPaths, startReachPages } from '../../support/reach-pages.ts'
import { latestView, refOn } from './view-reading.ts'
import { widgetRuns } from './widget-runs.ts'

// Editors and web components from real libraries (Quill, CodeMirror 6, Shoelace), through the HTTP API: a
// scripted model that acts only on what the latest page view in its prompt shows (it reads each ref off a
// line by its role, name or icon, never knowing one in advance), and checks the page's own read-back of
// its state (the post's markup, the editor's document, the saved theme) before it calls the task done.

const runs = widgetRuns(startReachPages, 10)

function succeeded(list: AgentEvent[]): void {
  // What the model did and last saw, to read when it fails.
  const last = runs.fake.requests.at(-1)
  const calls = list.flatMap((event) =>
    event.type === 'tool_call_start' ? [`${event.tool} ${JSON.stringify(event.input)}`] : [],
  )
  const seen = `${calls.join('\n')}\n${last ? latestView(promptText(last)) : ''}`
  const failures = list.flatMap((event) =>
    event.type === 'tool_call_result' && !event.ok ? [event.result ?? ''] : [],
  )
  expect(failures, seen).toEqual([])
  expect(list.at(-1), seen).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
}

test("Quill: text typed into the editor, a word selected, and made bold by the toolbar's icon-only button", async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    // Quill's markup keeps the space as &nbsp;.
    if (/Body: <p>Hello(&nbsp;| )<strong>world<\/strong><\/p>/.test(view)) return doneTurn('"world" is bold.')
    // Quill's editor: an editable region with no name of its own.
    const editor = refOn(view, /^\s*- generic[^\n]*\[multiline\]/)
    if (!editor) return doneTurn('No editor in the view.', false)
    if (!/Body: <p>Hello(&nbsp;| )world<\/p>/.test(view))
      return actionTurn('type', { ref: editor, text: 'Hello world' })
    if (!prompt.includes('Selected "world"')) return actionTurn('select_text', { ref: editor, text: 'world' })
    const bold = refOn(view, /button \[icon=bold\]/)
    return bold ? actionTurn('click', { ref: bold }) : doneTurn('No bold button in the view.', false)
  }
  succeeded(await runs.run('Write "Hello world" in the post and make "world" bold.', reachPaths.quill))
})

test('CodeMirror 6: code typed into the editor is in its document and in the view', async () => {
  const code = 'const answer = 42;'
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    const editor = refOn(view, /textbox[^\n]*\[multiline\]/)
    if (!editor) return doneTurn('No editor in the view.', false)
    // Done when the page saved the code and the view shows it in the editor, not only in the page's read-back.
    const shown = view.split('\n').some((line) => line.includes(code) && !line.includes('Saved:'))
    if (view.includes(`Saved: ${code}`)) return doneTurn('The snippet holds the code.', shown)
    return actionTurn('type', { ref: editor, text: code })
  }
  succeeded(await runs.run(`Write ${code} in the snippet editor.`, reachPaths.codemirror))
})

test("Shoelace: a dialog opened, an option picked from a select in shadow roots, the dialog's button saves", async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Theme: dark'))
      // The dialog fades out as Shoelace closes it: what is leaving has no refs, and the model waits it out.
      return view.includes('Dialog open')
        ? actionTurn('wait', { seconds: 1 })
        : doneTurn('The theme is dark.')
    if (/combobox "Theme"[^\n]*: Dark/.test(view)) {
      const save = refOn(view, /button "Save"/)
      if (save) return actionTurn('click', { ref: save })
    }
    const dark = refOn(view, /option "Dark"/)
    if (dark) return actionTurn('click', { ref: dark })
    const list = refOn(view, /^\s*[-*] listbox/)
    if (list) return actionTurn('scroll', { direction: 'down', ref: list })
    const select = refOn(view, /combobox "Theme"/)
    if (select) return actionTurn('click', { ref: select })
    const open = refOn(view, /button "Preferences"/)
    return open ? actionTurn('click', { ref: open }) : doneTurn('Nothing to open.', false)
  }
  succeeded(await runs.run('Set the theme to Dark in the preferences and save it.', reachPaths.shoelace))
})

test('react-contexify: a plain li right-clicked by its ref (React wires onContextMenu), Delete picked from the menu', async () => {
  runs.policy = (prompt) => {
    const view = latestView(prompt)
    if (view.includes('Status: deleted notes.txt')) return doneTurn('notes.txt is deleted.')
    const remove = refOn(view, /menuitem "Delete"/)
    if (remove) return actionTurn('click', { ref: remove })
    const file = refOn(view, /listitem \[contextmenu\][^\n]*: notes\.txt/)
    return file
      ? actionTurn('click', { ref: file, button: 'right' })
      : doneTurn('No file to right-click.', false)
  }
  succeeded(await runs.run('Delete notes.txt from its right-click menu.', reachPaths.contexify))
})
