import { describe, expect, test } from 'vitest'
import { countTokens } from '../../../src/util/tokens.ts'
import { Driver, parseView, servedFixtures } from '../helpers/harness.ts'

const fixtures = servedFixtures()

async function open(page: string, options: Parameters<typeof Driver.open>[1] = {}): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/${page}`, ...options })
  await driver.observe()
  return driver
}

async function said(driver: Driver): Promise<string> {
  const result = await driver.act('execute_javascript', {
    script: "document.getElementById('said').textContent",
  })
  return JSON.parse(result.text.replace(/^Result: /, '')) as string
}

function lineOf(driver: Driver, name: string) {
  const line = parseView(driver.view).find((candidate) => candidate.name === name)
  if (!line) throw new Error(`No line named ${name} in:\n${driver.view}`)
  return line
}

describe('the state a reader needs', () => {
  test('a file tree says which items are folders and whether they are open; items inside an opened folder can be acted on', async () => {
    const driver = await open('fidelity/file-tree.html')
    const src = lineOf(driver, 'src')
    expect(src.line).toMatch(/\[folder\] \[collapsed\]/)
    expect(lineOf(driver, 'docs').line).toMatch(/\[folder\] \[collapsed\]/)
    expect(lineOf(driver, 'package.json').line).not.toContain('[folder]')
    expect(driver.view).not.toContain('refs.ts')

    expect((await driver.act('click', { ref: src.ref })).ok).toBe(true)
    await driver.observe()
    // Opening a folder keeps its ref.
    expect(lineOf(driver, 'src').ref).toBe(src.ref)
    expect(lineOf(driver, 'src').line).toMatch(/\[folder\] \[expanded\]/)
    expect(lineOf(driver, 'browser').line).toMatch(/\[folder\] \[collapsed\]/)
    expect(lineOf(driver, 'index.ts').ref).toMatch(/\w+/)

    expect((await driver.act('click', { ref: lineOf(driver, 'browser').ref })).ok).toBe(true)
    await driver.observe()
    expect((await driver.act('click', { ref: lineOf(driver, 'refs.ts').ref })).ok).toBe(true)
    expect(await said(driver)).toBe('refs.ts')

    // Close and reopen the outer folder, then act on an item deep inside.
    expect((await driver.act('click', { ref: src.ref })).ok).toBe(true)
    await driver.observe()
    expect(lineOf(driver, 'src').line).toMatch(/\[collapsed\]/)
    expect(driver.view).not.toContain('view.ts')
    expect((await driver.act('click', { ref: src.ref })).ok).toBe(true)
    await driver.observe()
    expect((await driver.act('click', { ref: lineOf(driver, 'view.ts').ref })).ok).toBe(true)
    expect(await said(driver)).toBe('view.ts')
    await driver.close()
  })

  test('icons drawn with CSS are named by their image file or telling class', async () => {
    const driver = await open('icon-toolbar.html')
    for (const [icon, expected] of [
      ['share-arrow', 'share'],
      ['print-page', 'print'],
      ['bookmark-add', 'bookmark'],
      ['btn-trash', 'trash'],
    ] as const) {
      const line = parseView(driver.view).find((candidate) => candidate.line.includes(`[icon=${icon}]`))
      expect(line, `[icon=${icon}] in\n${driver.view}`).toBeDefined()
      expect((await driver.act('click', { ref: line!.ref })).ok).toBe(true)
      expect(await said(driver)).toBe(expected)
    }
    await driver.close()
  })

  test('a "more" control is named by its icon, not its hidden menu; the opened menu\'s entries have refs', async () => {
    const driver = await open('more-menu.html')
    expect(driver.view).not.toContain('Edit post')
    const more = parseView(driver.view).find((line) => /\[icon=(more|dots)\]/.test(line.line))
    expect(more, driver.view).toBeDefined()
    expect((await driver.act('click', { ref: more!.ref })).ok).toBe(true)
    await driver.observe()
    const entry = (text: string) => parseView(driver.view).find((line) => line.line.endsWith(`: ${text}`))
    for (const text of ['Edit post', 'Archive post', 'Delete post'])
      expect(entry(text)?.ref, driver.view).toMatch(/\w/)
    expect((await driver.act('click', { ref: entry('Archive post')!.ref })).ok).toBe(true)
    expect(await said(driver)).toBe('Archive post')
    await driver.close()
  })

  test('text bound to a script handler gets its own ref, even inside a text row or a clickable row', async () => {
    const driver = await open('contact-card.html')
    for (const [name, expected] of [
      ['ada@example.com', 'email'],
      ['+44 20 7946 0000', 'phone'],
      ['Reply', 'reply'],
      ['Forward', 'forward'],
    ] as const) {
      const result = await driver.act('click', { ref: lineOf(driver, name).ref })
      expect(result.ok, result.text).toBe(true)
      expect(await said(driver)).toBe(expected)
    }
    await driver.close()
  })
})

describe('reading and size', () => {
  test('on-screen paragraphs are shown in full up to the line budget; a cut line says how much is left and where', async () => {
    const driver = await open('fidelity/long-article.html')
    const view = driver.view
    const short = (
      await driver.act('execute_javascript', { script: "document.getElementById('short').textContent" })
    ).text
    const shortText = JSON.parse(short.replace(/^Result: /, '')) as string
    expect(shortText.length).toBeGreaterThan(300)
    expect(view).toContain(shortText)
    const cut = view.split('\n').find((line) => line.includes('Second paragraph'))!
    expect(cut).not.toContain('The very end of the long paragraph.')
    expect(cut).toMatch(/… \[\d+ more chars: read_page\]$/)
    expect(cut.length).toBeGreaterThan(500)
    // Headings that hold an [edit] link are listed by their text.
    expect(view).toMatch(
      /^Below the viewport: .*headings: "Section History", "Section Design", "Section Legacy"/m,
    )
    await driver.close()
  })

  test('token counts are real o200k counts, and the cap holds on CJK text', async () => {
    const driver = await open('fidelity/cjk.html')
    expect(driver.last!.tokens).toBe(countTokens(driver.view))
    // Characters ÷ 4 undercounts Japanese text badly.
    expect(driver.last!.tokens).toBeGreaterThan(Math.ceil(driver.view.length / 4) * 1.5)
    await driver.close()

    const capped = await open('fidelity/cjk.html', { pageViewTokenCap: 400 })
    expect(capped.last!.tokens).toBeLessThanOrEqual(400)
    expect(countTokens(capped.view)).toBe(capped.last!.tokens)
    expect(capped.view).toContain('cut to fit the size limit')
    await capped.close()
  })

  test("a page that spells a tokenizer's special tokens is counted as text, not refused", async () => {
    const driver = await open('fidelity/special-tokens.html')
    expect(driver.view).toContain('<|endoftext|>')
    expect(driver.view).toContain('<|im_start|>')
    expect(driver.last!.tokens).toBe(countTokens(driver.view))
    // Each marker is several tokens of text, never the single special token.
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1)
    await driver.close()
  })
})
