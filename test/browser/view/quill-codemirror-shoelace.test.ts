import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import type { PageServer } from '../../support/page-server.ts'
import { reachPaths, startReachPages } from '../../support/reach-pages.ts'
import { Driver, testPool } from '../helpers/harness.ts'

// The lines the view gives real editors, in real Chromium: what the HTTP test's model reads them by.

let pool: BrowserPool
let pages: PageServer
let driver: Driver

beforeAll(async () => {
  pages = await startReachPages()
  pool = testPool()
  driver = await Driver.open(pool)
}, 60_000)
afterAll(async () => {
  await driver?.close()
  await pool?.close()
  await pages?.close()
})

async function open(path: string): Promise<void> {
  await driver.act('navigate', { url: `${pages.url}${path}` })
  await driver.observe()
}

test("Quill: the toolbar's buttons are named by their icon, the empty editor is a field with no icon", async () => {
  await open(reachPaths.quill)
  for (const icon of ['bold', 'italic', 'underline', 'list', 'link'])
    expect(driver.view).toMatch(new RegExp(`button \\[icon=${icon}\\] \\[ref=`))
  const editor = driver.view.split('\n').find((line) => line.includes('[multiline]'))
  expect(editor, driver.view).toMatch(/^- generic \[multiline\]/)
  // 'ql-editor' holds the icon word 'edit': an editable region is not a glyph.
  expect(editor).not.toContain('[icon=')
})

test('CodeMirror: its textbox stays [multiline] once it holds code', async () => {
  await open(reachPaths.codemirror)
  const ref = /textbox \[multiline\][^\n]*\[ref=(\w+)\]/.exec(driver.view)?.[1]
  expect(ref, driver.view).toBeDefined()
  expect(await driver.act('type', { ref, text: 'let x = 1' })).toMatchObject({ ok: true })
  await driver.observe()
  expect(driver.view).toMatch(/textbox [^\n]*\[multiline\][^\n]*\[ref=/)
  expect(driver.view).toContain('Saved: let x = 1')
})
