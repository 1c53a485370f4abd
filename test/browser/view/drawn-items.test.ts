import { expect, test } from 'vitest'
import { refHolding } from '../../server/widgets/view-reading.ts'
import { Driver, parseView, servedFixtures } from '../helpers/harness.ts'

// Items drawn in SVG whose shapes each hear their own events (a flow editor's nodes, written carelessly:
// no roles, no cursors, a double click made of two presses): the item a person acts on, the shapes' group,
// gets the ref, with its label under it, and `find` on the label answers with it.

const fixtures = servedFixtures()

async function status(driver: Driver): Promise<string> {
  await driver.observe()
  return /(Status: [^\n]*)/.exec(driver.view)?.[1] ?? driver.view
}

test("a drawn node's group gets the ref, and a double click on it opens its editor, not its trigger", async () => {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/listeners/svg-flow.html` })
  await driver.observe()
  const node = refHolding(driver.view, 'Show')
  expect(node, driver.view).toBeDefined()
  const opened = await driver.act('click', { ref: node, count: 2 })
  expect(opened.ok, opened.text).toBe(true)
  expect(await status(driver)).toBe('Status: editing Show')
  const typed = await driver.act('type', { ref: driver.ref('textbox', /.*/), text: 'Show payload' })
  expect(typed.ok, typed.text).toBe(true)
  const done = parseView(driver.view).find((line) => line.line.includes('Done'))
  expect(done, driver.view).toBeDefined()
  expect((await driver.act('click', { ref: done?.ref })).ok).toBe(true)
  expect(await status(driver)).toBe('Status: renamed Show payload')
  await driver.close()
})

test("find on a drawn node's label answers with the node's own ref", async () => {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/listeners/svg-flow.html` })
  await driver.observe()
  const found = await driver.act('find', { text: 'Filter' })
  expect(found.ok, found.ok ? '' : found.text).toBe(true)
  const ref = /\[ref=(\w+)\]/.exec(found.ok ? found.text : '')?.[1]
  expect(ref, found.ok ? found.text : '').toBe(refHolding(driver.view, 'Filter'))
  expect((await driver.act('click', { ref, count: 2 })).ok).toBe(true)
  expect(await status(driver)).toBe('Status: editing Filter')
  await driver.close()
})
