import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { Driver, testPool } from '../helpers/harness.ts'
import { type SpyHost, spyHost } from '../helpers/spy-host.ts'

/**
 * No name a page's own scripts can read says Sextant: not a global, a symbol,
 * an attribute, nor anything a MutationObserver records while the run looks at
 * the page (the scan and its listener lookup), acts on it, takes a picture
 * (the secret covers) and runs a script in it. The page watches from its first
 * line and keeps every sighting.
 */

const watcher = `<script>
  window.sightings = []
  const says = (text) => /sextant/i.test(String(text))
  const look = (where) => {
    for (const name of Object.getOwnPropertyNames(window)) if (says(name)) sightings.push(where + ' window.' + name)
    for (const name of Object.getOwnPropertyNames(document)) if (says(name)) sightings.push(where + ' document.' + name)
    for (const symbol of Object.getOwnPropertySymbols(window)) if (says(symbol.toString())) sightings.push(where + ' ' + symbol.toString())
    for (const element of document.querySelectorAll('*'))
      for (const attribute of element.attributes) if (says(attribute.name) || says(attribute.value)) sightings.push(where + ' @' + attribute.name)
  }
  new MutationObserver((records) => {
    for (const record of records) {
      if (says(record.attributeName) || says(record.oldValue)) sightings.push('mutation @' + record.attributeName)
      if (record.attributeName && says(record.target.getAttribute(record.attributeName))) sightings.push('mutation value @' + record.attributeName)
      for (const node of [...record.addedNodes, ...record.removedNodes])
        if (says(node.nodeType === 1 ? node.outerHTML : node.textContent)) sightings.push('mutation node ' + node.nodeName)
    }
    look('after mutation')
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true })
  setInterval(() => look('timer'), 5)
</script>`

const page = `<!doctype html><title>Watcher</title>${watcher}
  <h1>Shop</h1>
  <span class="more" style="cursor:pointer" onclick="this.textContent='opened'">details</span>
  <button onclick="setTimeout(() => document.body.append('clicked'), 20)">Buy</button>
  <input type="password" value="hunter2" aria-label="Password">
  <input aria-label="Name">`

let pool: BrowserPool
let site: SpyHost

beforeAll(async () => {
  pool = testPool()
  site = await spyHost()
  site.pages.set('/watch.html', page)
})

afterAll(async () => {
  await pool?.close()
  await site?.close()
})

test('a page that watches its globals, attributes and mutation records for "sextant" sees nothing', async () => {
  const driver = await Driver.open(pool, { allowedDomains: ['127.0.0.1'] })
  try {
    expect((await driver.act('navigate', { url: `${site.origin}/watch.html` })).ok).toBe(true)
    await driver.observe()
    expect((await driver.act('click', { ref: driver.ref('generic', 'details') })).ok).toBe(true)
    await driver.observe()
    expect((await driver.act('click', { ref: driver.ref('button', 'Buy') })).ok).toBe(true)
    await driver.observe()
    expect((await driver.act('type', { ref: driver.ref('textbox', 'Name'), text: 'Ada' })).ok).toBe(true)
    const pictures = driver.session.pictures
    expect(pictures).toBeDefined()
    await pictures?.screenshot({}, new AbortController().signal)
    await driver.observe()
    const result = await driver.act('execute_javascript', { script: 'JSON.stringify(window.sightings)' })
    expect(result.ok).toBe(true)
    expect(result.text).toBe('Result: "[]"')
  } finally {
    await driver.close()
  }
})
