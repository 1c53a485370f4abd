import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { AbortError } from '../../../src/tool.ts'
import { type PageServer as StaticServer, serveFolder } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { Driver, fixturesDir, parseView, testPool } from '../helpers/harness.ts'

let pool: BrowserPool
let server: StaticServer
let scratch: string

beforeAll(async () => {
  // /hang never answers: the page that uses it never finishes loading.
  server = await serveFolder(fixturesDir, { '/hang': () => {} })
  pool = testPool()
  scratch = await mkdtemp(join(tmpdir(), 'sextant-actions-'))
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

async function open(page: string, options: Parameters<typeof Driver.open>[1] = {}): Promise<Driver> {
  const driver = await Driver.open(pool, { startUrl: `${server.url}/${page}`, ...options })
  await driver.observe()
  return driver
}

async function evaluate(driver: Driver, script: string): Promise<unknown> {
  const result = await driver.act('execute_javascript', { script })
  expect(result.ok, result.text).toBe(true)
  return JSON.parse(result.text.replace(/^Result: /, ''))
}

describe('effects', () => {
  test('every action declares whether it only reads or may change the page, for policy rules', async () => {
    const driver = await open('article.html')
    const effects = Object.fromEntries(driver.session.tools().map((tool) => [tool.name, tool.effect]))
    expect(effects).toEqual({
      navigate: 'destructive',
      go_back: 'readOnly',
      go_forward: 'readOnly',
      reload: 'destructive',
      click: 'destructive',
      type: 'destructive',
      select_option: 'destructive',
      set_value: 'destructive',
      drag: 'destructive',
      select_text: 'readOnly',
      hover: 'readOnly',
      click_at: 'destructive',
      drag_at: 'destructive',
      hover_at: 'readOnly',
      press_key: 'destructive',
      scroll: 'readOnly',
      find: 'readOnly',
      read_page: 'readOnly',
      read_console: 'readOnly',
      read_network: 'readOnly',
      open_tab: 'destructive',
      switch_tab: 'readOnly',
      close_tab: 'destructive',
      upload_file: 'destructive',
      execute_javascript: 'destructive',
    })
    await driver.close()
  })
})

describe('click', () => {
  test('says promptly what covers an element, and clicks once it is gone', async () => {
    const driver = await open('effects/modal.html')
    const buy = driver.ref('button', 'Buy now')
    const covered = await driver.act('click', { ref: buy })
    expect(covered.ok).toBe(false)
    expect(covered.text).toMatch(/^Could not click button 'Buy now': it is covered by div#overlay\.backdrop/)
    expect(covered.text).toContain('which holds dialog "Newsletter"; close or dismiss that first.')

    const noThanks = driver.ref('button', 'No thanks')
    expect(await driver.act('click', { ref: noThanks })).toEqual({
      ok: true,
      text: "Clicked button 'No thanks'.",
    })
    expect(await driver.act('click', { ref: buy })).toEqual({ ok: true, text: "Clicked button 'Buy now'." })
    expect(await evaluate(driver, "document.getElementById('status').textContent")).toBe('bought')

    const stale = await driver.act('click', { ref: noThanks })
    expect(stale).toEqual({
      ok: false,
      text: expect.stringMatching(`^Element ${noThanks} is no longer on the page`),
    })
    const unknown = await driver.act('click', { ref: 'zzzz' })
    expect(unknown.text).toMatch(/^Element zzzz is no longer on the page/)
    await driver.close()
  })

  test('refuses a disabled element at once', async () => {
    const driver = await open('effects/modal.html')
    const result = await driver.act('click', { ref: driver.ref('button', 'Sold out') })
    expect(result).toEqual({ ok: false, text: "Could not click button 'Sold out': it is disabled." })
    await driver.close()
  })

  test('throws AbortError when the run is aborted', async () => {
    const driver = await open('effects/modal.html')
    const controller = new AbortController()
    controller.abort()
    await expect(
      driver.act('click', { ref: driver.ref('button', 'No thanks') }, controller.signal),
    ).rejects.toThrow(AbortError)
    await driver.close()
  })
})

describe('type, select_option, press_key, hover', () => {
  test('fills every kind of field, converting dates and times, and submits', async () => {
    const driver = await open('forms.html')
    const type = (name: string, text: string, extra: Record<string, unknown> = {}) =>
      driver.act('type', { ref: driver.ref('textbox', name), text, ...extra })

    expect(await type('Birthday', '03/15/2025')).toEqual({
      ok: true,
      text: `Typed "2025-03-15" (from "03/15/2025") into textbox 'Birthday'.`,
    })
    expect((await type('Alarm', '2:30 PM')).text).toContain('"14:30"')
    expect((await type('Meeting', 'March 15, 2025 at 9:05 am')).text).toContain('"2025-03-15T09:05"')
    expect((await type('Month', 'March 2025')).text).toContain('"2025-03"')
    expect((await type('Week', '2025-03-15')).text).toContain('"2025-W11"')
    const badDate = await type('Birthday', 'next tuesday-ish')
    expect(badDate.ok).toBe(false)
    expect(badDate.text).toMatch(
      /is a date field and could not read "next tuesday-ish"; give a date such as 2025-03-15/,
    )

    const password = await type('Password', 'correct horse')
    // The result tells the agent the input was a password, so the history masks it.
    expect(password).toEqual({
      ok: true,
      text: "Typed 13 characters into textbox 'Password'.",
      maskInput: ['text'],
    })
    await type('Full name', 'Grace')
    await type('Comments', 'first', { clear: true })
    await type('Comments', ' second', { clear: false })
    await type('Notes', 'a note')
    const readOnly = await type('Read only', 'x')
    expect(readOnly).toEqual({ ok: false, text: "Could not type into textbox 'Read only': it is read-only." })

    expect(
      (await driver.act('select_option', { ref: driver.ref('combobox', 'Country'), options: ['Japan'] }))
        .text,
    ).toBe(`Selected "Japan" in combobox 'Country'.`)
    expect(
      (
        await driver.act('select_option', {
          ref: driver.ref('listbox', 'Toppings'),
          options: ['cheese', 'Olives'],
        })
      ).ok,
    ).toBe(true)
    const missing = await driver.act('select_option', {
      ref: driver.ref('combobox', 'Country'),
      options: ['Peru'],
    })
    expect(missing).toEqual({
      ok: false,
      text: `No option "Peru" in combobox 'Country'. Its options: "Choose…", "France", "Japan".`,
    })
    const wrongTool = await driver.act('type', { ref: driver.ref('combobox', 'Country'), text: 'x' })
    expect(wrongTool.text).toBe("combobox 'Country' is a dropdown: use select_option.")

    await driver.act('click', { ref: driver.ref('textbox', 'Comments') })
    expect(await driver.act('press_key', { key: 'backspace' })).toEqual({
      ok: true,
      text: 'Pressed Backspace.',
    })
    expect((await driver.act('press_key', { key: 'Hyper+Q' })).ok).toBe(false)

    expect(
      (await driver.act('type', { ref: driver.ref('textbox', 'Email'), text: 'a@b.c', submit: true })).text,
    ).toBe(`Typed "a@b.c" into textbox 'Email' and pressed Enter.`)
    const submitted = JSON.parse(String(await evaluate(driver, "document.getElementById('out').textContent")))
    expect(submitted).toMatchObject({
      name: 'Grace',
      password: 'correct horse',
      email: 'a@b.c',
      birthday: '2025-03-15',
      alarm: '14:30',
      meeting: '2025-03-15T09:05',
      month: '2025-03',
      week: '2025-W11',
      comments: 'first secon',
      country: 'jp',
      toppings: ['Cheese', 'Olives'],
      notes: 'a note',
    })
    await driver.close()
  })

  test('picks options in a custom dropdown and in an autocomplete list', async () => {
    const driver = await open('dropdowns.html')
    const result = await driver.act('select_option', {
      ref: driver.ref('button', 'Choose fruit'),
      options: ['Cherry'],
    })
    expect(result).toEqual({ ok: true, text: `Selected "Cherry" in button 'Choose fruit'.` })
    expect(await evaluate(driver, "document.getElementById('chosen').textContent")).toBe('Cherry')

    await driver.act('type', { ref: driver.ref('textbox', 'City'), text: 'Po' })
    await driver.observe()
    const porto = parseView(driver.view).find((line) => line.line.includes('Porto'))
    expect(porto).toBeDefined()
    await driver.act('click', { ref: porto!.ref })
    expect(await evaluate(driver, "document.getElementById('city').value")).toBe('Porto')
    await driver.close()
  })

  test('hover opens a hover menu', async () => {
    const driver = await open('dropdowns.html')
    // Shown only while its menu is hovered: listed in it, marked, with the ref it keeps once shown.
    expect(driver.view).toMatch(/link "Settings page" \[on hover\] \[ref=/)
    const before = driver.ref('link', 'Settings page')
    const found = await driver.act('find', { text: 'Account' })
    const ref = /\[ref=(\w+)\]/.exec(found.text)![1]!
    expect(await driver.act('hover', { ref })).toEqual({
      ok: true,
      text: `Hovering over navigation 'Account'.`,
    })
    await driver.observe()
    expect(driver.view).not.toContain('[on hover]')
    expect(driver.ref('link', 'Settings page')).toBe(before)
    await driver.close()
  })
})

describe('scroll, find, read_page', () => {
  test('scrolls the page and says where it is; refuses to scroll past the top', async () => {
    const driver = await open('long-page.html')
    const top = await driver.act('scroll', { direction: 'up' })
    expect(top.ok).toBe(false)
    expect(top.text).toMatch(/^Could not scroll up: the page is already at the top/)
    const down = await driver.act('scroll', { direction: 'down', pages: 2 })
    expect(down.text).toMatch(/^Scrolled the page down by \d+px; now 1\.8 screens above/)
    await driver.observe()
    expect(driver.view).toMatch(/^Scroll: 1\.\d pages above/m)
    expect(driver.view).toMatch(/^Above the viewport: \d+ interactive elements; headings: "Section 1"/m)
    await driver.close()
  })

  test('a page whose scripts broke scrollBy is still scrolled, by the mouse wheel', async () => {
    const driver = await open('long-page.html')
    const broken = await driver.act('execute_javascript', {
      script: `Element.prototype.scrollBy = () => { throw new Error('no scrolling here') }`,
    })
    expect(broken.ok, broken.text).toBe(true)
    const down = await driver.act('scroll', { direction: 'down' })
    expect(down.text).toMatch(/^Scrolled down with the mouse wheel/)
    await driver.observe()
    expect(driver.view).toMatch(/^Scroll: 0\.\d pages above/m)
    await driver.close()
  })

  test('find reaches elements off screen, and their refs work', async () => {
    const driver = await open('long-page.html')
    const found = await driver.act('find', { text: 'Link 30.5 with' })
    expect(found.ok).toBe(true)
    expect(found.text).toMatch(
      /^Found 1 element containing "Link 30.5 with":\n- link "Link 30\.5 with a fairly long descriptive name" \[ref=(\w+)\] \(below the screen, [\d.]+ screens down\)$/,
    )
    const ref = /\[ref=(\w+)\]/.exec(found.text)![1]!
    expect((await driver.act('click', { ref })).ok).toBe(true)
    await driver.observe()
    expect(driver.last!.url).toMatch(/#s30-5$/)
    const none = await driver.act('find', { text: 'no such words anywhere' })
    expect(none).toEqual({ ok: false, text: 'No element on the page contains "no such words anywhere".' })
    await driver.close()
  })

  test('read_page gives the text as Markdown', async () => {
    const driver = await open('article.html')
    const result = await driver.act('read_page', {})
    expect(result.ok).toBe(true)
    expect(result.text).toContain('# Quarterly report')
    expect(result.text).toContain('Sales grew 12% this quarter, led by Europe .')
    expect(result.text).toContain('## Highlights')
    expect(result.text).toContain('- New office in Lyon')
    expect(result.text).toContain('  - Sextant Pro')
    expect(result.text).toContain('| Region | Revenue |\n| --- | --- |\n| Europe | 4.2 |\n| Asia | 3.1 |')
    await driver.close()
  })
})

describe('navigation and the network guard', () => {
  test('navigates, goes back and forward, reloads', async () => {
    const driver = await open('article.html')
    expect((await driver.act('navigate', { url: `${server.url}/forms.html` })).text).toBe(
      `Opened ${server.url}/forms.html ("Every input").`,
    )
    expect((await driver.act('go_back', {})).text).toBe(
      `Went back to ${server.url}/article.html ("Article").`,
    )
    expect((await driver.act('go_forward', {})).text).toBe(
      `Went forward to ${server.url}/forms.html ("Every input").`,
    )
    expect((await driver.act('go_forward', {})).ok).toBe(false)
    expect((await driver.act('reload', {})).ok).toBe(true)
    const observation = await driver.observe()
    expect(observation.notes).toContain(`Navigated to ${server.url}/forms.html`)
    await driver.close()
  })

  test('refuses other domains and unsafe schemes with a result, never a hang', async () => {
    const driver = await open('effects/popups.html')
    expect(await driver.act('navigate', { url: 'https://example.com/' })).toEqual({
      ok: false,
      text: 'Navigation to https://example.com/ blocked: domain not in allowedDomains.',
    })
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'chrome://settings',
      'data:text/html,hi',
    ]) {
      const result = await driver.act('navigate', { url })
      expect(result.ok).toBe(false)
      expect(result.text).toMatch(/refused: \w+: URLs are not allowed in this run\.$/)
    }
    await driver.act('click', { ref: driver.ref('link', 'Leave the site') })
    const observation = await driver.observe()
    expect(observation.notes).toContain(
      'Navigation to http://blocked.invalid/ blocked: domain not in allowedDomains.',
    )
    await driver.close()
  })

  test('a page that never finishes loading does not stall a step', async () => {
    const driver = await open('article.html')
    const result = await driver.act('navigate', { url: `${server.url}/effects/never-loads.html` })
    expect(result.text).toBe(
      `Opened ${server.url}/effects/never-loads.html ("Still loading"); the page is still loading.`,
    )
    const observation = await driver.observe()
    expect(observation.notes).toContain('The page has not finished loading; the view shows it as it is now.')
    expect(driver.ref('button', 'Ready button')).toMatch(/^b/)
    await driver.close()
  })
})

describe('tabs, dialogs, downloads, uploads, scripts', () => {
  test('new tabs and popups become active and are reported; tabs can be switched and closed', async () => {
    const driver = await open('effects/popups.html')
    await driver.act('click', { ref: driver.ref('link', 'Open second page') })
    let observation = await driver.observe()
    expect(observation.notes).toContain(
      `New tab t2 opened (${server.url}/effects/second.html); it is now the active tab.`,
    )
    expect(observation.tabs.map((tab) => [tab.id, tab.active])).toEqual([
      ['t1', false],
      ['t2', true],
    ])
    expect(driver.view).toMatch(/^Tabs: t1 "Popups" \| t2 "Second page" \(active\)$/m)
    await driver.act('click', { ref: driver.ref('button', 'Press me') })

    expect((await driver.act('switch_tab', { tab: 't1' })).text).toBe(
      `Switched to tab t1 ("Popups", ${server.url}/effects/popups.html).`,
    )
    await driver.observe()
    await driver.act('click', { ref: driver.ref('button', 'Open popup') })
    observation = await driver.observe()
    expect(observation.notes.some((note) => note.startsWith('New tab t3 opened'))).toBe(true)
    await driver.act('click', { ref: driver.ref('button', 'Close me') })
    observation = await driver.observe()
    expect(observation.notes).toContain('Tab t3 was closed by the page.')
    expect(observation.tabs.find((tab) => tab.active)?.id).toBe('t2')
    // t2 is shown again as it was left: its one button still pressed.
    expect(driver.names('button')).toEqual(['Pressed'])

    expect((await driver.act('close_tab', { tab: 't2' })).text).toMatch(/^Closed tab t2\. Active tab: t1/)
    expect((await driver.act('switch_tab', { tab: 't9' })).text).toBe('There is no tab "t9". Open tabs: t1.')
    const opened = await driver.act('open_tab', { url: `${server.url}/article.html` })
    expect(opened.text).toBe(`Opened tab t4 at ${server.url}/article.html ("Article").`)
    const refused = await driver.act('open_tab', { url: 'https://example.org/' })
    expect(refused.ok).toBe(false)
    observation = await driver.observe()
    expect(observation.tabs.map((tab) => tab.id)).toEqual(['t1', 't4'])
    expect(observation.notes).toEqual([])
    await driver.close()
  })

  test('accepts dialogs by default and reports them', async () => {
    const driver = await open('effects/dialogs.html')
    for (const name of ['Alert', 'Confirm', 'Prompt'])
      await driver.act('click', { ref: driver.ref('button', name) })
    const observation = await driver.observe()
    expect(observation.notes).toEqual([
      'A alert dialog in tab t1 said "Saved!"; it was accepted.',
      'A confirm dialog in tab t1 said "Delete everything?"; it was accepted.',
      'A prompt dialog in tab t1 said "Your name?"; it was accepted with its default value.',
    ])
    expect(await evaluate(driver, "[...document.querySelectorAll('li')].map(li => li.textContent)")).toEqual([
      'alert done',
      'confirm true',
      'prompt Ada',
    ])
    await driver.close()
  })

  test('dismisses dialogs when asked to', async () => {
    const driver = await open('effects/dialogs.html', { dialogs: 'dismiss' })
    for (const name of ['Confirm', 'Prompt']) await driver.act('click', { ref: driver.ref('button', name) })
    const observation = await driver.observe()
    expect(observation.notes[0]).toBe(
      'A confirm dialog in tab t1 said "Delete everything?"; it was dismissed.',
    )
    expect(await evaluate(driver, "[...document.querySelectorAll('li')].map(li => li.textContent)")).toEqual([
      'confirm false',
      'prompt null',
    ])
    await driver.close()
  })

  test("saves downloads into the run's folder, reports them, and hands each on to be kept", async () => {
    const runDir = join(scratch, 'run-download')
    const kept: [string, string][] = []
    const keepDownload = async (name: string, path: string) => {
      kept.push([name, path])
    }
    const driver = await open('effects/download.html', { runDir, keepDownload })
    await driver.act('click', { ref: driver.ref('link', 'Download report') })
    const target = join(runDir, 'downloads', 'report.csv')
    // The browser starts a download of <a download> without a request or a DOM change the settle could
    // wait for: it is reported by the next observation or the one after, never by none.
    const note = await until(async () =>
      (await driver.observe()).notes.find((text) => text.startsWith('Downloaded')),
    )
    expect(note).toBe(`Downloaded "report.csv" (17 B) to ${target}.`)
    expect(await readFile(target, 'utf8')).toBe('name,total\nada,3\n')
    expect(kept).toEqual([['report.csv', target]])
    await driver.close()
  })

  test('uploads files from the upload folder only', async () => {
    const uploadDir = join(scratch, 'uploads')
    await rm(uploadDir, { recursive: true, force: true })
    await import('node:fs/promises').then((fs) => fs.mkdir(uploadDir, { recursive: true }))
    await writeFile(join(uploadDir, 'a.txt'), 'hello')
    await writeFile(join(scratch, 'secret.txt'), 'secret')
    const driver = await open('effects/upload.html', { uploadDir })
    const input = driver.ref('button', /Attachment|Choose File/)
    expect(await driver.act('upload_file', { ref: input, paths: ['a.txt'] })).toEqual({
      ok: true,
      text: `Uploaded a.txt through button '${driver.refs().find((line) => line.ref === input)!.name}'.`,
    })
    expect(await evaluate(driver, "document.getElementById('picked').textContent")).toBe('a.txt:5')
    const viaButton = await driver.act('upload_file', {
      ref: driver.ref('button', 'Choose a photo'),
      paths: ['a.txt'],
    })
    expect(viaButton.ok, viaButton.text).toBe(true)
    for (const path of ['../secret.txt', join(scratch, 'secret.txt')]) {
      const refused = await driver.act('upload_file', { ref: input, paths: [path] })
      expect(refused).toEqual({
        ok: false,
        text: `Refused to upload ${path}: only files inside the upload folder may be uploaded.`,
      })
    }
    expect((await driver.act('upload_file', { ref: input, paths: ['missing.txt'] })).text).toMatch(
      /^File not found/,
    )
    await driver.close()

    const noFolder = await open('effects/upload.html')
    expect(
      await noFolder.act('upload_file', {
        ref: noFolder.ref('button', /Attachment|Choose File/),
        paths: ['a.txt'],
      }),
    ).toEqual({
      ok: false,
      text: 'File uploads are not enabled for this run (no upload folder is configured).',
    })
    await noFolder.close()
  })

  test('execute_javascript needs confirmation, returns JSON, and passes the run signal to the script', async () => {
    const driver = await open('article.html')
    const tool = driver.session.tools().find((candidate) => candidate.name === 'execute_javascript')!
    expect(tool.requiresConfirmation).toBe(true)
    expect(await driver.act('execute_javascript', { script: 'document.title' })).toEqual({
      ok: true,
      text: 'Result: "Article"',
    })
    expect(
      (await driver.act('execute_javascript', { script: 'const n = 2\nreturn { n, double: n * 2 }' })).text,
    ).toBe('Result: {"n":2,"double":4}')
    expect(
      (await driver.act('execute_javascript', { script: "return document.querySelector('h1')" })).text,
    ).toBe('Result: "<h1>Quarterly report"')
    expect((await driver.act('execute_javascript', { script: "throw new Error('boom')" })).text).toMatch(
      /^The script failed: .*boom/,
    )

    const controller = new AbortController()
    const running = driver.act(
      'execute_javascript',
      {
        script:
          "await new Promise((resolve) => signal.addEventListener('abort', resolve)); window.scriptSawAbort = true; return 1",
      },
      controller.signal,
    )
    setTimeout(() => controller.abort(), 200)
    await expect(running).rejects.toThrow(AbortError)
    await expect.poll(() => evaluate(driver, 'window.scriptSawAbort === true')).toBe(true)
    await driver.close()
  })
})
