import { describe, expect, test } from 'vitest'
import { Driver, servedFixtures } from '../helpers/harness.ts'

// aria-hidden is the page's claim; the screen is the fact. A dropdown whose script shows it but leaves
// `aria-hidden="true"` on it draws links a person clicks: they get refs, marked [aria-hidden] so the model
// knows the page hides them from assistive tech. What is aria-hidden and fading out, inert, covered by a
// modal's backdrop or not drawn gets none. Real Chromium, a hand-written careless page.

const fixtures = servedFixtures()

function line(view: string, text: string): string {
  return view.split('\n').find((each) => each.includes(text)) ?? ''
}

describe('content a stale aria-hidden claims hidden', () => {
  test('a shown dropdown left aria-hidden: its links and clickable span get marked refs that act', async () => {
    const driver = await Driver.open(fixtures.pool, {
      startUrl: `${fixtures.url}/reach/stale-aria-hidden.html`,
    })
    try {
      await driver.observe()
      // Closed (display: none), the menu is not in the view at all.
      expect(driver.view).not.toContain('Tents')
      const toggle = /\[ref=(\w+)\]/.exec(line(driver.view, 'Shop'))?.[1]
      expect(toggle, driver.view).toBeDefined()
      expect((await driver.act('click', { ref: toggle })).ok).toBe(true)
      await driver.observe()
      expect(line(driver.view, 'Tents')).toMatch(/link \[aria-hidden\] \[ref=\w+\]: Tents/)
      expect(line(driver.view, 'Boots')).toMatch(/link \[aria-hidden\] \[ref=\w+\]: Boots/)
      expect(line(driver.view, 'Sale')).toMatch(/\[aria-hidden\].*\[ref=\w+\]/)
      // Not drawn over by anything, yet hidden from assistive tech: the inert one is not offered.
      expect(line(driver.view, 'Old offer')).not.toMatch(/\[ref=/)
      const boots = /\[ref=(\w+)\]/.exec(line(driver.view, 'Boots'))?.[1] ?? ''
      expect(await driver.act('click', { ref: boots })).toEqual({ ok: true, text: "Clicked link 'Boots'." })
      await driver.observe()
      expect(driver.view).toContain('Opened: Boots')
      // Drawn and on screen with nothing in front: the page's other aria-hidden link is offered too.
      expect(line(driver.view, 'Terms of sale')).toMatch(/link \[aria-hidden\] \[ref=\w+\]/)
    } finally {
      await driver.close()
    }
  })

  test('behind a modal backdrop, or fading out, aria-hidden content is shown without refs', async () => {
    const driver = await Driver.open(fixtures.pool, {
      startUrl: `${fixtures.url}/reach/stale-aria-hidden.html`,
    })
    try {
      await driver.observe()
      expect(line(driver.view, 'Undo removal')).toMatch(/\[aria-hidden\] \[ref=/)
      const signIn = /\[ref=(\w+)\]/.exec(line(driver.view, 'button "Sign in"'))?.[1]
      expect((await driver.act('click', { ref: signIn })).ok).toBe(true)
      await driver.observe()
      expect(driver.view).toContain('Terms of sale')
      expect(line(driver.view, 'Terms of sale')).not.toMatch(/\[ref=/)
      // The toast fades out over 30 s: leaving, not offered.
      expect(line(driver.view, 'Undo removal')).not.toMatch(/\[ref=/)
      expect(line(driver.view, 'button "Close"')).toMatch(/\[ref=/)
      expect(line(driver.view, 'button "Sign in"')).not.toMatch(/\[ref=/)
    } finally {
      await driver.close()
    }
  })
})
