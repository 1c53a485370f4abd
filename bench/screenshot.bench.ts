// What a step screenshot costs on saved real-world pages: capture time (masking
// overlay, CDP capture, overlay removal) and JPEG size, at the defaults
// (quality 70, 1280 px viewport). Prints figures; never fails on them.
//
//   node bench/screenshot.bench.ts [name-filter…]
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchBrowser } from '../src/browser/launch/launcher.ts'
import { captureScreenshot } from '../src/browser/session/pictures/screenshot.ts'
import { sessionContextOptions } from '../src/browser/session/session-context.ts'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const pagesDir = join(root, '..', 'shared', 'pages', 'real-world')
const rounds = 5
const filters = process.argv.slice(2)
const signal = new AbortController().signal

const names = (await readdir(pagesDir))
  .filter((file) => file.endsWith('.html'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()
const browser = await launchBrowser({})
const context = await browser.newContext(sessionContextOptions({ runId: 'bench' }))
const page = await context.newPage()
let html = ''
// The saved page is the only thing that loads: no network, so the figures are the capture's alone.
await page.route('**/*', (route) =>
  route.request().url() === 'http://bench.test/'
    ? route.fulfill({ body: html, contentType: 'text/html' })
    : route.abort(),
)

const times: number[] = []
const sizes: number[] = []
console.log('page                          p50 ms   KB')
for (const name of names) {
  html = await readFile(join(pagesDir, name), 'utf8')
  await page.goto('http://bench.test/', { waitUntil: 'load', timeout: 15_000 }).catch(() => {})
  await captureScreenshot(page, {}, signal)
  const own: number[] = []
  let bytes = 0
  for (let round = 0; round < rounds; round++) {
    const started = performance.now()
    const shot = await captureScreenshot(page, {}, signal)
    own.push(performance.now() - started)
    bytes = shot.data.length
  }
  times.push(...own)
  sizes.push(bytes)
  console.log(
    `${name.padEnd(28)} ${median(own).toFixed(1).padStart(7)} ${(bytes / 1024).toFixed(0).padStart(4)}`,
  )
}
console.log(
  `\nall ${names.length} pages: capture p50 ${median(times).toFixed(1)} ms, p90 ${quantile(times, 0.9).toFixed(1)} ms; ` +
    `JPEG p50 ${(median(sizes) / 1024).toFixed(0)} KB, max ${(Math.max(...sizes) / 1024).toFixed(0)} KB`,
)
await browser.close()

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * q))] ?? 0
}

function median(values: number[]): number {
  return quantile(values, 0.5)
}
