import { describe, expect, test } from 'vitest'
import { hasWordPress, startWordPress } from '../../support/apps/wordpress.ts'
import { actionTurn, doneTurn, type FakeTurn, promptText } from '../../support/models/fake-openai.ts'
import { refOn } from '../widgets/view-reading.ts'
import { actionResults, appRuns } from './app-runs.ts'
import { logIn, passwordSecret } from './wordpress-login.ts'

// Issue #44 on the real application: Debian's WordPress 6.1, its block editor (Gutenberg) in core, driven
// through the HTTP API by a scripted model that acts only on the latest page view in its prompt. The
// pre-publish panel's Publish button sits in a fixed panel under the editor's scrolling ancestor: a click
// check that clipped it by that ancestor judged it invisible.

const runs = appRuns(startWordPress, 16, (site) => ({ [passwordSecret]: site.admin.password }))

function click(view: string, line: RegExp): FakeTurn {
  const ref = refOn(view, line)
  return ref ? actionTurn('click', { ref }) : doneTurn(`No ${line} in the view.`, false)
}

describe.skipIf(!hasWordPress())('WordPress 6.1 from Debian, through the HTTP API', () => {
  test('logged in through the form, a post written in the block editor is published through the pre-publish panel', async () => {
    const title = 'Notes from the sextant'
    const paragraph = 'Every step is observed, thought and acted.'
    runs.policy = (view) => {
      const login = logIn(view, runs.app.admin.user)
      if (login) return login
      if (view.includes('Title: Dashboard')) return click(view, /link "Posts"/)
      if (view.includes('Title: Posts')) return click(view, /link "Add New"/)
      if (!view.includes('Title: Add New Post')) return doneTurn('Not in the editor.', false)
      // The editor greets a first visit with its welcome guide, a modal: closed as a person would.
      if (view.includes('Dialog open: dialog "Welcome to the block editor"'))
        return click(view, /button "Close dialog"/)
      if (view.includes('is now live')) return doneTurn('The post is published.')
      // Enter in the title opens an empty paragraph block below it, focused.
      const block = refOn(view, /document "Empty block/)
      if (block) return actionTurn('type', { ref: block, text: paragraph })
      if (!view.includes(`"${title}"`)) {
        const titleBox = refOn(view, /textbox "Add title"/)
        if (titleBox) return actionTurn('type', { ref: titleBox, text: title, submit: true })
      }
      if (!view.includes(paragraph)) return doneTurn('The paragraph is not in the view.', false)
      // The header's Publish opens the panel; once it asks, its own Publish is the last one the view lists.
      const buttons = view.split('\n').filter((line) => /button "Publish" .*\[ref=/.test(line))
      const chosen = view.includes('Are you ready to publish?') ? buttons.at(-1) : buttons[0]
      const ref = chosen && refOn(chosen, /button "Publish"/)
      return ref ? actionTurn('click', { ref }) : doneTurn('No Publish button in the view.', false)
    }
    const list = await runs.run('Write a post and publish it.', '/wp-admin/')

    expect(actionResults(list)).toEqual([
      { ok: true, result: 'Typed "admin" into textbox \'Username or Email Address\'.' },
      {
        ok: true,
        result: 'Typed "<secret>wp_password</secret>" into textbox \'Password\' and pressed Enter.',
      },
      { ok: true, result: "Clicked link 'Posts'." },
      { ok: true, result: "Clicked link 'Add New'." },
      { ok: true, result: "Clicked button 'Close dialog'." },
      { ok: true, result: `Typed "${title}" into textbox 'Add title' and pressed Enter.` },
      { ok: true, result: expect.stringMatching(`^Typed "${paragraph}" into document 'Empty block`) },
      { ok: true, result: "Clicked button 'Publish'." },
      { ok: true, result: "Clicked button 'Publish'." },
    ])
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    // WordPress itself says so: anonymous readers of its REST API see only published posts.
    const posts = await runs.app.rest<
      { status: string; title: { rendered: string }; content: { rendered: string } }[]
    >(`/wp/v2/posts?search=${title}`)
    expect(posts).toHaveLength(1)
    expect(posts[0]).toMatchObject({ status: 'publish', title: { rendered: title } })
    expect(posts[0]?.content.rendered).toContain(`<p>${paragraph}</p>`)
    // The password went in as a secret: no prompt the model was sent holds it.
    expect(runs.fake.requests.some((request) => promptText(request).includes(runs.app.admin.password))).toBe(
      false,
    )
  }, 240_000)
})
