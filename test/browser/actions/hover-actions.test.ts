import { describe, expect, test } from 'vitest'
import { Driver, parseView, servedFixtures } from '../helpers/harness.ts'

// Acting on an element shown only while its row or card is hovered hovers that row first, waits for the
// element to be shown, then acts: as a person would. Each page is careless in its own way (WordPress's
// parked row actions, faded card tools that take no pointer, hidden row buttons, a mouseenter script).

const fixtures = servedFixtures()

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/hover/${page}` })
  await driver.observe()
  return driver
}

/** The ref of the latest view's line matching `pattern`, read as a model reads the view. */
function refOf(driver: Driver, pattern: RegExp): string {
  const found = parseView(driver.view).find((candidate) => pattern.test(candidate.line))
  if (!found) throw new Error(`No line matching ${pattern} in:\n${driver.view}`)
  return found.ref
}

async function status(driver: Driver): Promise<string> {
  await driver.observe()
  return /(Status: [^\n]*)/.exec(driver.view)?.[1] ?? driver.view
}

describe('acting on hover-revealed elements', () => {
  test("clicking a WordPress row's Trash link trashes that post and no other", async () => {
    const driver = await open('wp-posts.html')
    const trashed = await driver.act('click', {
      ref: refOf(driver, /"Move “Hello world!” to the Trash" \[on hover\]/),
    })
    expect(trashed.ok, trashed.text).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('1 post moved to the Trash.')
    expect(driver.view).not.toMatch(/link "Hello world!" \[url/)
    expect(driver.view).toMatch(/link "Hello world! \(draft copy\)" \[url/)
    await driver.close()
  })

  test('find lists a row action off screen with [on hover], and its ref is clicked through its row', async () => {
    const driver = await Driver.open(fixtures.pool, {
      startUrl: `${fixtures.url}/hover/wp-posts.html?more=30`,
      viewport: { width: 1280, height: 400 },
    })
    await driver.observe()
    const found = await driver.act('find', { text: 'Move “Archived post 30” to the Trash' })
    expect(found.ok, found.text).toBe(true)
    const ref = /"Move “Archived post 30” to the Trash" \[on hover\][^\n]*\[ref=(\w+)\]/.exec(found.text)?.[1]
    expect(ref, found.text).toBeDefined()
    const trashed = await driver.act('click', { ref })
    expect(trashed.ok, trashed.text).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('1 post moved to the Trash.')
    expect(driver.view).toMatch(/URL: \S+\?trashed=1&ids=130&/)
    await driver.close()
  })

  test("a card's faded tool, which takes no pointer until its card is hovered, is clicked", async () => {
    const driver = await open('cards.html')
    const lines = parseView(driver.view).filter((line) => /"Delete card" \[on hover\]/.test(line.line))
    // The second card's: the first card's tools sit elsewhere on the page.
    const deleted = await driver.act('click', { ref: lines[1]?.ref })
    expect(deleted.ok, deleted.text).toBe(true)
    expect(await status(driver)).toBe('Status: deleted Team offsite')
    await driver.close()
  })

  test("a file row's hidden button is clicked once its row is hovered", async () => {
    const driver = await open('cards.html')
    const buttons = parseView(driver.view).filter((line) => /button "Download" \[on hover\]/.test(line.line))
    const clicked = await driver.act('click', { ref: buttons[1]?.ref })
    expect(clicked.ok, clicked.text).toBe(true)
    expect(await status(driver)).toBe('Status: downloading minutes.docx')
    await driver.close()
  })

  test('a link a mouseenter script shows is clicked, and hovered, through its ref', async () => {
    const driver = await open('members.html')
    const removes = parseView(driver.view).filter((line) => /link "Remove" \[on hover\]/.test(line.line))
    const removed = await driver.act('click', { ref: removes[1]?.ref })
    expect(removed.ok, removed.text).toBe(true)
    expect(await status(driver)).toBe('Status: removed Alan Turing')
    // Any action that takes a ref hovers the row first: hovering the link itself does too.
    const promote = refOf(driver, /link "Promote" \[on hover\]/)
    const hovered = await driver.act('hover', { ref: promote })
    expect(hovered.ok, hovered.text).toBe(true)
    await driver.observe()
    expect(driver.view).toMatch(/text: Ada Lovelace\n\s+- link "Promote" \[ref=/)
    await driver.close()
  })
})
