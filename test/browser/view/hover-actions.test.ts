import { describe, expect, test } from 'vitest'
import { Driver, parseView, servedFixtures, type ViewLine } from '../helpers/harness.ts'

// Row and card actions shown only while their row or card is hovered: WordPress's posts list (parked
// 9999em to the left), a card's tools (opacity 0, no pointer events), a file row's buttons (visibility
// hidden) and a member row a script reveals on mouseenter. Each is listed inside its row with a ref and
// `[on hover]`, read from the style rules and the listeners, without hovering a row.

const fixtures = servedFixtures()

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/hover/${page}` })
  await driver.observe()
  return driver
}

/** The lines of the view from the one matching `start` up to (not including) the next one matching `end`. */
function between(view: string, start: RegExp, end: RegExp): string[] {
  const lines = view.split('\n')
  const from = lines.findIndex((line) => start.test(line))
  if (from < 0) throw new Error(`No line matching ${start} in:\n${view}`)
  const to = lines.findIndex((line, index) => index > from && end.test(line))
  return lines.slice(from, to < 0 ? undefined : to)
}

function line(driver: Driver, pattern: RegExp): ViewLine {
  const found = parseView(driver.view).find((candidate) => pattern.test(candidate.line))
  if (!found) throw new Error(`No line matching ${pattern} in:\n${driver.view}`)
  return found
}

describe('hover-revealed actions in the page view', () => {
  test("WordPress's row actions are listed in their row, with refs and [on hover]", async () => {
    const driver = await open('wp-posts.html')
    const row = between(driver.view, /rowheader "Select Hello world!"/, /- row$/)
    const actions = row.filter((text) => text.includes('[on hover]'))
    expect(actions).toHaveLength(4)
    expect(actions[0]).toMatch(/link "Edit “Hello world!”" \[on hover\] .*\[ref=\w+\]: Edit$/)
    expect(actions[1]).toMatch(
      /button "Quick edit “Hello world!” inline" \[on hover\] \[ref=\w+\]: Quick Edit$/,
    )
    expect(actions[2]).toMatch(/link "Move “Hello world!” to the Trash" \[on hover\] .*\[ref=\w+\]: Trash$/)
    expect(actions[3]).toMatch(/link "View “Hello world!”" \[on hover\] .*\[ref=\w+\]: View$/)
    // Under the row's title cell, not summed up as off screen (the page parks them at -9999em).
    const title = line(driver, /link "Hello world!" \[url/)
    expect(line(driver, /Move “Hello world!” to the Trash/).indent).toBe(title.indent - 1)
    expect(driver.view).not.toMatch(/Below the viewport/)
    // Every row in sight has its own four.
    expect(parseView(driver.view).filter((found) => found.line.includes('[on hover]'))).toHaveLength(16)
    await driver.close()
  })

  test('only the rows in sight have their hover actions listed', async () => {
    const driver = await Driver.open(fixtures.pool, {
      startUrl: `${fixtures.url}/hover/wp-posts.html`,
      viewport: { width: 1280, height: 250 },
    })
    await driver.observe()
    const offered = parseView(driver.view).filter((found) => found.line.includes('[on hover]'))
    expect(offered.length).toBeGreaterThan(0)
    expect(offered.length).toBeLessThan(16)
    expect(driver.view).not.toContain('Move “Pricing page rewrite” to the Trash')
    const scrolled = await driver.act('scroll', { direction: 'down', pages: 3 })
    expect(scrolled.ok, scrolled.text).toBe(true)
    await driver.observe()
    expect(line(driver, /Move “Pricing page rewrite” to the Trash/).line).toContain('[on hover]')
    await driver.close()
  })

  test('a long list offers the hover actions of the rows in sight, wherever it is scrolled', async () => {
    // A short window: every row in sight has its actions, within the cap on what one view offers.
    const driver = await Driver.open(fixtures.pool, {
      startUrl: `${fixtures.url}/hover/wp-posts.html?more=40`,
      viewport: { width: 1280, height: 250 },
    })
    await driver.observe()
    expect(driver.view).not.toContain('Archived post 40')
    const scrolled = await driver.act('scroll', { direction: 'down', pages: 20 })
    expect(scrolled.ok, scrolled.text).toBe(true)
    await driver.observe()
    expect(line(driver, /Move “Archived post 40” to the Trash/).line).toContain('[on hover]')
    await driver.close()
  })

  test('a hovered row shows its actions as they are; the other rows keep the hint', async () => {
    const driver = await open('wp-posts.html')
    const before = line(driver, /Move “Pricing page rewrite” to the Trash/).ref
    const hovered = await driver.act('hover', { ref: line(driver, /link "Pricing page rewrite" \[url/).ref })
    expect(hovered.ok, hovered.text).toBe(true)
    await driver.observe()
    expect(line(driver, /Move “Pricing page rewrite” to the Trash/).line).not.toContain('[on hover]')
    // Shown or not, it is the same element with the same ref.
    expect(line(driver, /Move “Pricing page rewrite” to the Trash/).ref).toBe(before)
    expect(line(driver, /Move “Hello world!” to the Trash/).line).toContain('[on hover]')
    await driver.close()
  })

  test("a card's faded tools and a file row's hidden buttons are listed with [on hover]", async () => {
    const driver = await open('cards.html')
    const card = between(driver.view, /heading "Quarterly report"/, /heading "Team offsite"/)
    expect(card.join('\n')).toMatch(/generic "Archive" \[on hover\] \[clickable\] \[ref=\w+\]/)
    expect(card.join('\n')).toMatch(/generic "Delete card" \[on hover\] \[clickable\] \[ref=\w+\]/)
    const file = between(driver.view, /cell "minutes.docx"/, /- row$/)
    expect(file.join('\n')).toMatch(/button "Download" \[on hover\] \[ref=\w+\]/)
    await driver.close()
  })

  test('the tools a mouseenter handler shows are listed in their row with [on hover]', async () => {
    const driver = await open('members.html')
    const member = between(driver.view, /text: Alan Turing/, /text: Grace Hopper/).join('\n')
    expect(member).toMatch(/link "Promote" \[on hover\] \[ref=\w+\]/)
    expect(member).toMatch(/link "Remove" \[on hover\] \[ref=\w+\]/)
    await driver.close()
  })
})
