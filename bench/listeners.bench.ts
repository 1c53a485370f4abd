import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../src/browser/launch/launcher.ts'
import { takeAriaSnapshot } from '../src/browser/view/aria-snapshot.ts'
import { ListenerLookup } from '../src/browser/view/listeners/listener-lookup.ts'
import { buildPageView } from '../src/browser/view/page-view.ts'
import { RefRegistry } from '../src/browser/view/stable-refs.ts'
import { countTokens } from '../src/util/tokens.ts'
import { openSavedPages } from './saved-pages.ts'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const fixtures = join(root, 'test', 'fixtures')
const rounds = 5
const signal = new AbortController().signal

/** 10,000 rows of five elements; every 50th row listens for double clicks, the root for clicks. */
const bigPage = `<!doctype html><title>Big</title><div id="root"></div><script>
const root = document.getElementById('root')
root.addEventListener('click', () => {})
for (let i = 0; i < 10000; i++) {
  const row = document.createElement('div')
  row.innerHTML = '<span>a' + i + '</span><span>b</span><i>c</i><b>d</b>'
  if (i % 50 === 0) row.addEventListener('dblclick', () => {})
  root.appendChild(row)
}
</script>`

/** Per task: the element it needs, as a line of each text (raw snapshot, Sextant's view) shows it. */
const tasks = [
  {
    task: 'right-click notes.txt',
    raw: /listitem \[ref=\w+\]: notes\.txt/,
    view: /\[contextmenu\] \[ref=\w+\]: notes\.txt/,
  },
  {
    task: 'double-click the Apple cell',
    raw: /cell "Apple" \[ref=/,
    view: /cell "Apple" \[dblclick\] \[ref=/,
  },
  {
    task: 'drag the card to the empty column',
    raw: /generic \[ref=\w+\]\s*$/m,
    view: /generic \[droppable\] \[ref=\w+\]$/m,
  },
  {
    task: 'drop the parcel on the bin',
    raw: /Drop parcels here/,
    view: /\[droppable\] \[ref=\w+\]: Drop parcels here/,
  },
] as const

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

async function lookupCost(page: Page): Promise<void> {
  const lookup = new ListenerLookup()
  await lookup.prepare(page)
  const looked: number[] = []
  const snapshots: number[] = []
  for (let round = 0; round < rounds; round++) {
    let start = performance.now()
    await lookup.prepare(page)
    looked.push(performance.now() - start)
    start = performance.now()
    await takeAriaSnapshot(page, signal, 60_000)
    snapshots.push(performance.now() - start)
  }
  const elements = await page.evaluate(() => document.querySelectorAll('*').length)
  console.log(
    `${elements} elements: listener lookup ${median(looked).toFixed(0)} ms (median of ${rounds}), ` +
      `Playwright's boxed snapshot ${median(snapshots).toFixed(0)} ms`,
  )
}

/** The view of a fresh registry, with or without asking the browser for listeners. */
async function viewTokens(page: Page, lookup: boolean): Promise<number> {
  const registry = new RefRegistry()
  if (!lookup) registry.listeners.prepare = async () => undefined
  return (await buildPageView(page, registry, { tabs: [] }, signal)).tokens
}

async function realWorldTokens(): Promise<void> {
  const { names, origin, page, close } = await openSavedPages()
  let raw = 0
  let without = 0
  let withLookup = 0
  console.log('\npage | raw tokens | view without lookup | view with lookup')
  try {
    for (const name of names) {
      await page.goto(`${origin}/${name}`, { waitUntil: 'load', timeout: 20_000 }).catch(() => {})
      // A page that times out on a loaded machine is left out of the totals, not the end of the run.
      const figures = await Promise.all([
        page.ariaSnapshot({ mode: 'ai', timeout: 30_000 }).then(countTokens),
        viewTokens(page, false).then(async (plain) => [plain, await viewTokens(page, true)] as const),
      ])
        .then(([rawCount, [plain, looked]]) => [rawCount, plain, looked] as const)
        .catch((error: unknown) => {
          console.log(`${name} | failed: ${String(error).split('\n')[0]}`)
          return [0, 0, 0] as const
        })
      if (figures[0] === 0) continue
      raw += figures[0]
      without += figures[1]
      withLookup += figures[2]
      console.log(`${name} | ${figures.join(' | ')}`)
    }
  } finally {
    await close()
  }
  console.log(
    `total | ${raw} | ${without} (${(without / raw).toFixed(3)}×) | ${withLookup} (${(withLookup / raw).toFixed(3)}×)`,
  )
}

async function main(): Promise<void> {
  const fixture = await readFile(join(fixtures, 'listeners.html'), 'utf8')
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8')
    response.end(request.url === '/big' ? bigPage : fixture)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const browser = await launchBrowser({})
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    await page.goto(`${url}/big`)
    await lookupCost(page)

    await page.goto(`${url}/listeners`)
    const raw = await page.ariaSnapshot({ mode: 'ai' })
    const view = (await buildPageView(page, new RefRegistry(), { tabs: [] }, signal)).text
    console.log(
      `\nlisteners.html: raw snapshot ${countTokens(raw)} tokens, Sextant's view ${countTokens(view)} tokens`,
    )
    console.log('task | raw Playwright: ref for it | Sextant: ref for it')
    for (const { task, raw: inRaw, view: inView } of tasks) {
      console.log(`${task} | ${inRaw.test(raw) ? 'yes' : 'no'} | ${inView.test(view) ? 'yes' : 'no'}`)
    }
  } finally {
    await browser.close()
    server.close()
  }
}

await main()
if (process.argv.includes('--pages')) await realWorldTokens()
