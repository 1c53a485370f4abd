// What one read of an element costs an action, by the way it is asked: a
// locator's evaluate (which first waits for the element, polling once a
// frame) against the lookup actions now make once (`elementHandles`, no
// wait) and a read through its handle. Prints medians; never fails on them.
//
//   node bench/element-reads.bench.ts
import type { Locator } from 'playwright-core'
import { launchBrowser } from '../src/browser/launch/launcher.ts'
import { sessionContextOptions } from '../src/browser/session/session-context.ts'
import { evaluateElement, firstElement } from '../src/browser/view/first-element.ts'

const calls = 60
const signal = new AbortController().signal
const browser = await launchBrowser({})
const context = await browser.newContext(sessionContextOptions({ runId: 'bench' }))
const page = await context.newPage()
await page.setContent('<form><label>Name <input name="name"></label><button>Send</button></form>')
// The ref of the field in Playwright's own snapshot, as the page view reads it.
const snapshot = await page.ariaSnapshot({ mode: 'ai' })
const ref = /textbox "Name" \[ref=(\w+)\]/.exec(snapshot)?.[1]
if (!ref) throw new Error(`no field in the snapshot:\n${snapshot}`)
const locator: Locator = page.locator(`aria-ref=${ref}`)
const tagOf = (element: Element) => element.tagName

async function median(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let call = 0; call < calls; call++) {
    const started = performance.now()
    await work()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

const handle = await firstElement(locator, signal)
if (!handle) throw new Error('the field is not found')
const rows: [string, number][] = [
  ['locator.evaluate (baseline)', await median(() => locator.evaluate(tagOf))],
  ['lookup: firstElement', await median(async () => (await firstElement(locator, signal))?.dispose())],
  ['read through the handle', await median(() => evaluateElement(handle, tagOf, undefined, signal))],
  ['locator.count (the old lookup)', await median(() => locator.count())],
]
console.log(`one read of an element, median of ${calls} calls on an idle page`)
for (const [name, ms] of rows) console.log(`  ${name.padEnd(32)} ${ms.toFixed(2).padStart(6)} ms`)
await browser.close()
