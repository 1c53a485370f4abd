import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { networkServiceOf } from '../../support/kill-chromium.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { sharedBrowserState } from '../../support/suite/shared-browser.ts'
import { until } from '../../support/until.ts'
import { Driver, testPool } from '../helpers/harness.ts'

/**
 * A settle waits for what an action set off, not for a clock: these pages set
 * off things late (a debounce, a slow answer, a timer) and each must show up in
 * a view, or be waited for before the browser closes, never be lost.
 */

let pool: BrowserPool
let server: PageServer
/** Paths of the API requests the server has answered, in order. */
const answered: string[] = []

/** Answers after `ms`, then records the request: a request is "answered" only once its answer went out. */
function slow(ms: number, body: (url: URL, payload: string) => string) {
  return (request: IncomingMessage, response: ServerResponse) => {
    let payload = ''
    request.on('data', (chunk) => {
      payload += String(chunk)
    })
    request.on('end', () => {
      setTimeout(() => {
        const url = new URL(request.url ?? '/', 'http://localhost')
        response.writeHead(200, { 'content-type': 'text/plain' }).end(body(url, payload))
        answered.push(`${request.method} ${url.pathname}${url.search}`)
      }, ms)
    })
  }
}

const searchPage = `<!doctype html><title>Search</title>
<label>Search <input id="q"></label><ul id="results"></ul>
<script>
  let timer
  document.getElementById('q').addEventListener('input', (event) => {
    clearTimeout(timer)
    timer = setTimeout(async () => {
      const response = await fetch('/api/search?q=' + encodeURIComponent(event.target.value))
      for (const name of (await response.text()).split(',')) {
        const item = document.createElement('li')
        item.textContent = name
        document.getElementById('results').append(item)
      }
    }, 300)
  })
</script>`

const savePage = `<!doctype html><title>Editor</title>
<textarea aria-label="Body">draft</textarea><button id="save">Save</button><p id="state"></p>
<script>
  let timer
  document.getElementById('save').addEventListener('click', () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      fetch('/api/save', { method: 'POST', body: document.querySelector('textarea').value })
    }, 300)
  })
</script>`

const listPage = `<!doctype html><title>List</title>
<button id="load">Load</button><ul id="list"></ul>
<script>
  document.getElementById('load').addEventListener('click', async () => {
    const response = await fetch('/api/items')
    for (const name of (await response.text()).split(',')) {
      const item = document.createElement('li')
      item.textContent = name
      document.getElementById('list').append(item)
    }
  })
</script>`

const linkPage = `<!doctype html><title>Start</title><a href="/slow-page">Go to the slow page</a>
<button onclick="setTimeout(() => window.open('/target'), 150)">Open later</button>
<button onclick="">Nothing</button>`

beforeAll(async () => {
  server = await startPageServer({
    pages: {
      '/search': searchPage,
      '/save': savePage,
      '/list': listPage,
      '/start': linkPage,
      '/target': '<!doctype html><title>Target</title><h1>Target page</h1>',
      '/paint':
        '<!doctype html><title>Paint</title><body style="background:#fff"><button>Paint</button><script>addEventListener("keydown", () => { document.body.style.background = "#000" })</script>',
    },
    routes: {
      '/api/search': slow(50, (url) => `Result for ${url.searchParams.get('q')}, Another result`),
      '/api/save': slow(200, () => 'saved'),
      '/api/items': slow(400, () => 'Apple,Banana,Cherry'),
      '/slow-page': (_request, response) => {
        setTimeout(() => {
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<!doctype html><title>Slow</title><h1>Arrived slowly</h1>')
        }, 400)
      },
    },
  })
  pool = testPool()
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
})

async function open(path: string): Promise<Driver> {
  const driver = await Driver.open(pool, { startUrl: `${server.url}${path}` })
  await driver.observe()
  return driver
}

describe('settling after an action', () => {
  test('a list that loads after a slow answer is in the next view', async () => {
    const driver = await open('/list')
    expect((await driver.act('click', { ref: driver.ref('button', 'Load') })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Cherry')
    await driver.close()
  })

  test('a list that loads after a slow answer is in the next view when the browser is slow to report the request', async () => {
    // The guard routes every request (the run names its domains), so Playwright hears of one only once the
    // browser has paused it; with the network service stopped, as a starved machine leaves it, that comes late.
    const driver = await open('/list')
    const network = networkServiceOf(sharedBrowserState().pid ?? 0)
    process.kill(network, 'SIGSTOP')
    const resume = setTimeout(() => process.kill(network, 'SIGCONT'), 500)
    try {
      expect((await driver.act('click', { ref: driver.ref('button', 'Load') })).ok).toBe(true)
      await driver.observe()
      expect(driver.view).toContain('Cherry')
    } finally {
      clearTimeout(resume)
      process.kill(network, 'SIGCONT')
      await driver.close()
    }
  })

  test('a navigation a click starts is waited for, however slow its answer', async () => {
    const driver = await open('/start')
    await driver.act('click', { ref: driver.ref('link', 'Go to the slow page') })
    const observation = await driver.observe()
    expect(observation.url).toBe(`${server.url}/slow-page`)
    expect(driver.view).toContain('Arrived slowly')
    await driver.close()
  })

  test('debounced search results: in the next view, or in the one after once the request went out', async () => {
    const driver = await open('/search')
    await driver.act('type', { ref: driver.ref('textbox', 'Search'), text: 'sextant' })
    const next = await driver.observe()
    if (!next.pageView.includes('Result for sextant')) {
      // The settle returned before the debounce fired: the request is on its way, and the next view has it.
      await until(() => answered.some((path) => path.startsWith('GET /api/search?q=sextant')))
      await driver.observe()
    }
    expect(driver.view).toContain('Result for sextant')
    expect(driver.view).toContain('Another result')
    await driver.close()
  })

  test('a popup a timer opens after the click is in the next view or reported by the one after', async () => {
    const driver = await open('/start')
    await driver.act('click', { ref: driver.ref('button', 'Open later') })
    const seen = await until(async () => {
      const observation = await driver.observe()
      return observation.notes.find((note) => note.startsWith('New tab t2 opened'))
    })
    expect(seen).toContain('it is now the active tab')
    expect(driver.view).toContain('Target page')
    await driver.close()
  })
})

describe('the screenshot, off the critical path', () => {
  test('a screenshot asked for during an observation shows the page as observed, even if an action follows at once', async () => {
    const driver = await open('/paint')
    const signal = new AbortController().signal
    const observing = driver.session.observe(signal)
    // Not awaited before the action, as an agent that does not hold the model request for it.
    const shot = driver.session.pictures!.screenshot({ maxWidth: 1280, labels: true }, signal)
    driver.last = await observing
    // A key press is the quickest action there is: nothing to resolve or wait for.
    expect((await driver.act('press_key', { key: 'x' })).ok).toBe(true)
    const { data } = await shot
    // The picture is decoded in the page itself: the mean brightness of its bottom-right corner.
    const decoded = await driver.act('execute_javascript', {
      script: `(async () => {
        const image = new Image()
        image.src = 'data:image/jpeg;base64,${Buffer.from(data).toString('base64')}'
        await image.decode()
        const canvas = document.createElement('canvas')
        canvas.width = image.width
        canvas.height = image.height
        const context = canvas.getContext('2d')
        context.drawImage(image, 0, 0)
        const pixels = context.getImageData(image.width - 20, image.height - 20, 10, 10).data
        let sum = 0
        for (let i = 0; i < pixels.length; i += 4) sum += pixels[i]
        return Math.round(sum / (pixels.length / 4))
      })()`,
    })
    expect(decoded.text).toBe('Result: 255')
    await driver.close()
  })
})

// A Playwright session has every optional method of BrowserSession, finish among them (hence the `!`s).
describe('finish: before the browser closes', () => {
  test('waits for a save posted 300 ms after the click, and says what it saw', async () => {
    const driver = await open('/save')
    await driver.act('click', { ref: driver.ref('button', 'Save') })
    const report = await driver.session.finish!(new AbortController().signal)
    expect(answered).toContain('POST /api/save')
    expect(report.completed).toBeGreaterThanOrEqual(1)
    expect(report.pending).toEqual([])
    await driver.close()
  })

  test('returns at once when nothing was set off, and honours the signal', async () => {
    const driver = await open('/start')
    const before = answered.length
    const report = await driver.session.finish!(new AbortController().signal)
    expect(report.pending).toEqual([])
    expect(answered.length).toBe(before)
    const controller = new AbortController()
    await driver.act('click', { ref: driver.ref('button', 'Nothing') })
    const finishing = driver.session.finish!(controller.signal)
    controller.abort()
    await expect(finishing).rejects.toThrow(/abort/i)
    await driver.close()
  })
})
