import { describe, expect, test } from 'vitest'
import { Driver, servedFixtures } from '../helpers/harness.ts'

// What a scrolling panel hides is summarised as the window's unseen part is: how many items lie above and
// below its fold, the headings there, and the names of the items nearest its edges, on the panel's own line
// beside its ref, so scrolling it by that ref is the obvious next step. A hand-written careless page (no roles,
// no cursors, listeners added by script) in real Chromium: a feed of 40 posts, a mail list, and a panel a
// page left scrolled to its middle.

const fixtures = servedFixtures()

/** The view's lines for the page's scrolling panels, in page order. */
function panels(view: string): string[] {
  return view.split('\n').filter((line) => line.includes('[scrollable]'))
}

function refOf(line: string | undefined): string {
  const ref = /\[ref=(\w+)\]/.exec(line ?? '')?.[1]
  if (!ref) throw new Error(`no ref on ${line}`)
  return ref
}

describe("a scrolling panel's unseen part", () => {
  test('a feed names the posts just below its fold; scrolled by its ref, the wanted post is shown and liked', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/reach/panels.html` })
    try {
      await driver.observe()
      const feed = panels(driver.view)[0]
      expect(feed).toMatch(
        /^- generic \[scrollable\] \[0 items above, 34 below; just below: "@gus_t posted update #7 Like", "@quinn_harper posted update #8 Like", "@ivy_n posted update #9 Like" \(\+31 more\)\] \[ref=\w+\]$/,
      )
      // Named in the summary only: the post itself is not on screen, and its Like has no ref yet.
      expect(driver.view.split('\n').filter((line) => line.includes('@quinn_harper'))).toEqual([feed])

      const scrolled = await driver.act('scroll', { direction: 'down', ref: refOf(feed) })
      expect(scrolled).toMatchObject({ ok: true })
      await driver.observe()
      const lines = driver.view.split('\n')
      const post = lines.findIndex((line) => line.includes('text: @quinn_harper posted update #8'))
      expect(post, driver.view).toBeGreaterThan(0)
      expect(lines[post + 1]).toMatch(/generic "Like" \[clickable\] \[ref=\w+\]/)
      // The feed now hides posts above too, and names the nearest of them.
      expect(panels(driver.view)[0]).toMatch(/\[\d+ items above, \d+ below; just above: (\(\+\d+ more\) )?"@/)
      expect(await driver.act('click', { ref: refOf(lines[post + 1]) })).toMatchObject({ ok: true })
      await driver.observe()
      expect(driver.view).toContain("Liked @quinn_harper's post")
    } finally {
      await driver.close()
    }
  })

  test('a mail list names the senders of the mails below its fold, each name cut at a word', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/reach/panels.html` })
    try {
      await driver.observe()
      // The sixth row shows in part: the piece of it the panel clips is not counted as an item of its own.
      // A name is cut at a word: the one-time code past the cut is left out whole, not shown in part.
      expect(panels(driver.view)[1]).toContain(
        '[0 items above, 14 below; just below: "Grace Obi Re: quarter plan, part 7", "Hana Sato Your sign-in code is…", "Igor Petrov Re: quarter plan, part 9" (+11 more)] [ref=',
      )
      expect(driver.view).not.toContain('QX7R')
    } finally {
      await driver.close()
    }
  })

  test('a panel scrolled to its middle says what lies above and below, headings first, nearest items next', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/reach/panels.html` })
    try {
      await driver.observe()
      expect(panels(driver.view)[2]).toContain(
        '[15 items above, 14 below; headings above: "Monday", "Tuesday"; just above: (+10 more) "Tuesday task 3 Done", "Tuesday task 4 Done", "Tuesday task 5 Done"; headings below: "Thursday"; just below: "Wednesday task 4 Done", "Wednesday task 5 Done", "Wednesday task 6 Done" (+10 more)] [ref=',
      )
      // The window's own summary is untouched: what the panels hide is theirs, not the page's.
      expect(driver.view).not.toMatch(/(Above|Below) the viewport/)
    } finally {
      await driver.close()
    }
  })

  test('a page of eight panels names what the first four hide and only counts the rest', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/reach/many-panels.html` })
    try {
      await driver.observe()
      const lines = panels(driver.view)
      expect(lines).toHaveLength(8)
      for (const [i, line] of lines.entries()) {
        expect(line).toContain('[0 items above, 14 below')
        if (i < 4)
          expect(line).toContain(
            `just below: "Panel ${i + 1} row 7 Open", "Panel ${i + 1} row 8 Open", "Panel ${i + 1} row 9 Open" (+11 more)]`,
          )
        else expect(line).not.toContain('just below')
        expect(line).toMatch(/\[ref=\w+\]$/)
      }
    } finally {
      await driver.close()
    }
  })
})
