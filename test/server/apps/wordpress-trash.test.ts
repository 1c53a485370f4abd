import { describe, expect, test } from 'vitest'
import { hasWordPress, startWordPress } from '../../support/apps/wordpress.ts'
import { actionTurn, doneTurn } from '../../support/models/fake-openai.ts'
import { refOn } from '../widgets/view-reading.ts'
import { actionResults, appRuns } from './app-runs.ts'
import { logIn, passwordSecret } from './wordpress-login.ts'

// Issue #44 item 7 on the real application: in Debian's WordPress 6.1 posts list, a row's Trash link is
// parked off screen (`.row-actions { left: -9999em }`) until the row is hovered. The view lists it in its
// row, marked [on hover]; the scripted model, reading only the view, clicks it by its ref, and the click
// hovers the row first, as a person's pointer would.

const runs = appRuns(startWordPress, 10, (site) => ({ [passwordSecret]: site.admin.password }))

describe.skipIf(!hasWordPress())('WordPress 6.1 from Debian, through the HTTP API', () => {
  test('a post is trashed from the posts list by the Trash link its row shows on hover', async () => {
    let offered = ''
    runs.policy = (view) => {
      const login = logIn(view, runs.app.admin.user)
      if (login) return login
      if (view.includes('moved to the Trash')) return doneTurn('The post is in the Trash.')
      if (view.includes('Title: Dashboard')) {
        const posts = refOn(view, /link "Posts"/)
        return posts ? actionTurn('click', { ref: posts }) : doneTurn('No Posts link.', false)
      }
      const trash = view.split('\n').find((line) => /link "Move “Hello world!” to the Trash"/.test(line))
      if (!trash) return doneTurn('No Trash link for "Hello world!" in the view.', false)
      offered = trash.trim()
      const ref = refOn(trash, /link "Move/)
      return ref ? actionTurn('click', { ref }) : doneTurn('The Trash link has no ref.', false)
    }
    const list = await runs.run('Move the post "Hello world!" to the Trash.', '/wp-admin/')

    // Offered before any hover, in its row, with the hint.
    expect(offered).toMatch(/^- link "Move “Hello world!” to the Trash" \[on hover\].*\[ref=\w+\]/)
    expect(actionResults(list).at(-1)).toEqual({
      ok: true,
      result: "Clicked link 'Move “Hello world!” to the Trash'.",
    })
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    // WordPress itself says so.
    const rows = await runs.app.db.query(
      "SELECT post_status FROM wp_posts WHERE post_title = 'Hello world!' AND post_type = 'post'",
      runs.app.database,
    )
    expect(rows).toEqual([['trash']])
  }, 240_000)
})
