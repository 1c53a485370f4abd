// The step bench's scenarios: each says what the model does per step (picked
// from the page view it is shown), what a bare Playwright loop does instead, and
// what the view must show after a step, so a fast step that lost what the page
// did is counted as a miss, not a win.
import type { Page } from 'playwright-core'
import type { PageSource, RouteHandler } from '../test/support/page-server.ts'

export interface Scenario {
  name: string
  /** Path on the bench's server. */
  path: string
  /** The model's action at step `index`, from the page view of that step. */
  steps: ((view: string, index: number) => Record<string, unknown>)[]
  /** What the same step does in a bare Playwright loop (followed by an AI snapshot there too). */
  bare: (page: Page, index: number) => Promise<Page | undefined>
  /** Text the view after step `index` must show; absent: nothing is checked. */
  expect?: (index: number) => string | undefined
}

/** The ref on the first line of `view` with this role whose text matches `name`, skipping `skip` matches. */
export function refIn(view: string, role: string, name: RegExp, skip = 0): string {
  let seen = 0
  for (const line of view.split('\n')) {
    const match = new RegExp(`^\\s*[-*] ${role}\\b(.*)\\[ref=(\\w+)\\]`).exec(line)
    if (!match || !name.test(match[1] ?? '')) continue
    if (seen++ === skip) return match[2] ?? ''
  }
  throw new Error(`No ${role} ${name} (#${skip}) in the view:\n${view.slice(0, 3000)}`)
}

const repeat = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, index) => make(index))

const todoInput = /What needs to be done/

export function todoMvc(): Scenario {
  return {
    name: 'TodoMVC: type+Enter ×8, toggle ×8',
    path: '/todomvc/vanillajs/index.html',
    steps: [
      ...repeat(8, () => (view: string, i: number) => ({
        type: { ref: refIn(view, 'textbox', todoInput), text: `Todo ${i + 1}`, submit: true },
      })),
      // The first checkbox is "Mark all as complete"; the items' own follow in order.
      ...repeat(8, () => (view: string, i: number) => ({
        click: { ref: refIn(view, 'checkbox', /.*/, 1 + (i - 8)) },
      })),
    ],
    bare: async (page, i) => {
      if (i < 8) {
        await page.getByPlaceholder('What needs to be done?').fill(`Todo ${i + 1}`)
        await page.keyboard.press('Enter')
      } else
        await page
          .getByRole('checkbox')
          .nth(i - 7)
          .click()
      return undefined
    },
    expect: (i) => (i < 8 ? `Todo ${i + 1}` : undefined),
  }
}

export function scrollPage(file: string): Scenario {
  return {
    name: `saved page ${file}: scroll ×6`,
    path: `/real-world/${file}`,
    // A page shorter than six screens is scrolled back up once its end is reached.
    steps: repeat(6, () => (view: string) => ({
      scroll: { direction: Number(/([\d.]+) pages below/.exec(view)?.[1] ?? 0) >= 1 ? 'down' : 'up' },
    })),
    bare: async (page) => {
      await page.mouse.move(640, 400)
      await page.mouse.wheel(0, 800)
      return undefined
    },
  }
}

const formPage = `<!doctype html><title>Sign up</title>
<h1>Sign up</h1>
<form id="f">
  <label>Name <input name="name"></label>
  <label>Email <input name="email" type="email"></label>
  <label>Country <select name="country"><option>France</option><option>Japan</option><option>Peru</option></select></label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label><input type="checkbox" name="agree"> I agree</label>
  <button>Send</button>
</form>
<p id="out"></p>
<script>
  document.getElementById('f').addEventListener('submit', async (event) => {
    event.preventDefault()
    const response = await fetch('/api/submit', { method: 'POST', body: new FormData(event.target) })
    document.getElementById('out').textContent = await response.text()
  })
</script>`

export function form(): Scenario {
  return {
    name: 'form: 4 fields, checkbox, send (fetch)',
    path: '/form',
    steps: [
      (view) => ({ type: { ref: refIn(view, 'textbox', /Name/), text: 'Ada Lovelace' } }),
      (view) => ({ type: { ref: refIn(view, 'textbox', /Email/), text: 'ada@example.com' } }),
      (view) => ({ select_option: { ref: refIn(view, 'combobox', /Country/), options: ['Japan'] } }),
      (view) => ({ type: { ref: refIn(view, 'textbox', /Notes/), text: 'Hello' } }),
      (view) => ({ click: { ref: refIn(view, 'checkbox', /agree/) } }),
      (view) => ({ click: { ref: refIn(view, 'button', /Send/) } }),
    ],
    bare: async (page, i) => {
      const steps = [
        () => page.getByLabel('Name').fill('Ada Lovelace'),
        () => page.getByLabel('Email').fill('ada@example.com'),
        () =>
          page
            .getByLabel('Country')
            .selectOption('Japan')
            .then(() => {}),
        () => page.getByLabel('Notes').fill('Hello'),
        () => page.getByLabel('I agree').check(),
        () => page.getByRole('button', { name: 'Send' }).click(),
      ]
      await steps[i]?.()
      return undefined
    },
    expect: (i) => (i === 5 ? 'Received Ada Lovelace' : undefined),
  }
}

const latePage = `<!doctype html><title>Feed</title>
<h1>Feed</h1><ul id="list"></ul><button id="more">Load more</button>
<script>
  let page = 0
  document.getElementById('more').addEventListener('click', async () => {
    page++
    const response = await fetch('/api/items?page=' + page)
    for (const item of await response.json()) {
      const li = document.createElement('li')
      li.textContent = item
      document.getElementById('list').append(li)
    }
  })
</script>`

export function lateList(): Scenario {
  return {
    name: 'late list: Load more ×5 (answer after 300 ms)',
    path: '/late',
    steps: repeat(5, () => (view: string) => ({ click: { ref: refIn(view, 'button', /Load more/) } })),
    bare: async (page) => {
      await page.getByRole('button', { name: 'Load more' }).click()
      return undefined
    },
    expect: (i) => `Item ${i + 1}.5`,
  }
}

const spaPage = `<!doctype html><title>Shop</title>
<nav><a href="/spa/home">Home</a> <a href="/spa/products">Products</a> <a href="/spa/about">About</a></nav>
<main id="main"></main>
<script>
  async function show(path) {
    const name = path.split('/').pop() || 'home'
    const response = await fetch('/api/route?name=' + name)
    document.getElementById('main').innerHTML = await response.text()
    document.title = 'Shop: ' + name
  }
  document.querySelector('nav').addEventListener('click', (event) => {
    const link = event.target.closest('a')
    if (!link) return
    event.preventDefault()
    history.pushState({}, '', link.href)
    show(link.pathname)
  })
  show(location.pathname)
</script>`

const routes = ['products', 'about', 'home', 'products', 'about', 'home']

export function spa(): Scenario {
  return {
    name: 'SPA: route change ×6 (content by fetch, 100 ms)',
    path: '/spa/home',
    steps: routes.map((route) => (view: string) => ({
      click: { ref: refIn(view, 'link', new RegExp(route, 'i')) },
    })),
    bare: async (page, i) => {
      await page.getByRole('link', { name: routes[i] ?? '', exact: false }).click()
      return undefined
    },
    expect: (i) => `The ${routes[i]} page`,
  }
}

const popupPage = `<!doctype html><title>Opener</title>
<h1>Opener</h1><a href="/popup-target" target="_blank">Open details</a>`

export function popup(): Scenario {
  return {
    name: 'popup: open in new tab, close it ×3',
    path: '/popup',
    steps: repeat(6, (index) =>
      index % 2 === 0
        ? (view: string) => ({ click: { ref: refIn(view, 'link', /Open details/) } })
        : // The newest tab is the popup, whichever tab the view shows as active.
          (view: string) => ({
            close_tab: { tab: /^Tabs:.*/m.exec(view)?.[0].match(/t\d+/g)?.at(-1) ?? 't2' },
          }),
    ),
    bare: async (page, i) => {
      if (i % 2 === 1) return undefined
      const [opened] = await Promise.all([page.waitForEvent('popup'), page.getByText('Open details').click()])
      return opened
    },
    expect: (i) => (i % 2 === 0 ? 'Details' : undefined),
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const scenarioPages: Record<string, PageSource> = {
  '/form': formPage,
  '/late': latePage,
  '/spa/home': spaPage,
  '/spa/products': spaPage,
  '/spa/about': spaPage,
  '/popup': popupPage,
  '/popup-target': '<!doctype html><title>Details</title><h1>Details</h1><p>More about it.</p>',
}

export const scenarioRoutes: Record<string, RouteHandler> = {
  '/api/submit': (request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += String(chunk)
    })
    request.on('end', () => {
      const name = /name="name"\r\n\r\n([^\r]*)/.exec(body)?.[1] ?? '?'
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`Received ${name}`)
    })
  },
  '/api/items': async (request, response) => {
    const page = Number(new URL(request.url ?? '', 'http://x').searchParams.get('page'))
    await delay(300)
    const items = Array.from({ length: 5 }, (_, i) => `Item ${page}.${i + 1}`)
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(items))
  },
  '/api/route': async (request, response) => {
    const name = new URL(request.url ?? '', 'http://x').searchParams.get('name') ?? 'home'
    await delay(100)
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<h1>The ${name} page</h1><p>About ${name}.</p>`)
  },
}
