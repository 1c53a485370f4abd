import { createSocket } from 'node:dgram'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserSessionOptions, PageObservation } from '../../../src/browser/browser-session.ts'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { Driver, testPool } from '../helpers/harness.ts'
import { type SpyHost, spyHost } from '../helpers/spy-host.ts'

/**
 * The sealed network boundary, vector by vector. Host A (127.0.0.1:<a>) is
 * allowed; host B (127.0.0.1:<b>) stands for a blocked host and records every
 * request, so "nothing reached B" is asserted on B's own log. Each vector runs
 * under both rules that must seal it: a run's `allowedDomains`, and the
 * denied origins every run has whatever `allowedDomains` says.
 */

let pool: BrowserPool
let allowed: SpyHost
let blocked: SpyHost
let blockedOrigin: string

beforeAll(async () => {
  pool = testPool()
  allowed = await spyHost()
  blocked = await spyHost()
  blockedOrigin = `http://127.0.0.1:${blocked.port}`
  definePages()
})

afterAll(async () => {
  await pool?.close()
  await allowed?.close()
  await blocked?.close()
})

const done = (marker: string) =>
  `(text) => document.body.insertAdjacentHTML('beforeend', '<p>${marker} ' + String(text) + '</p>')`

const page = (body: string) => `<!doctype html><title>page</title><body><h1>Allowed</h1>${body}</body>`

function definePages(): void {
  const b = blockedOrigin
  allowed.pages.set('/redirect', (_request, response) => {
    response.writeHead(302, { location: `${b}/secret` }).end()
  })
  allowed.pages.set(
    '/ws.html',
    page(`<script>const mark = ${done('ws-done')}; const ws = new WebSocket('ws://127.0.0.1:${blocked.port}/ws');
      ws.onopen = () => mark('open'); ws.onerror = () => mark('error'); ws.onclose = () => mark('closed')</script>`),
  )
  const workerScript = `const probe = () => fetch('${b}/from-worker').then((r) => r.text(), () => 'failed')`
  allowed.pages.set(
    '/shared.js',
    `${workerScript}; onconnect = (event) => { const port = event.ports[0]; probe().then((t) => port.postMessage(t.slice(0, 20))) }`,
  )
  allowed.pages.set(
    '/shared.html',
    page(`<script>const mark = ${done('shared-done')}; const worker = new SharedWorker('/shared.js');
      worker.port.onmessage = (event) => mark(event.data); worker.port.start()</script>`),
  )
  allowed.pages.set('/worker.js', `${workerScript}; probe().then((t) => postMessage(t.slice(0, 20)))`)
  allowed.pages.set(
    '/worker.html',
    page(`<script>const mark = ${done('worker-done')}; const worker = new Worker('/worker.js');
      worker.onmessage = (event) => mark(event.data)</script>`),
  )
  allowed.pages.set(
    '/sw.js',
    `self.addEventListener('install', (event) => event.waitUntil(fetch('${b}/from-service-worker').catch(() => {})))`,
  )
  allowed.pages.set(
    '/sw.html',
    page(`<script>const mark = ${done('sw-done')};
      if (!navigator.serviceWorker) mark('unavailable')
      else navigator.serviceWorker.register('/sw.js').then((registration) => {
        const worker = registration.installing || registration.waiting || registration.active
        if (!worker || worker.state === 'activated') return mark('active')
        worker.onstatechange = () => { if (worker.state === 'activated' || worker.state === 'redundant') mark(worker.state) }
      }, (error) => mark('refused'))</script>`),
  )
  const speculation = (kind: string) =>
    page(
      `<script type="speculationrules">{"${kind}": [{"source": "list", "urls": ["${b}/${kind}", "/${kind}-ok"]}]}</script>`,
    )
  allowed.pages.set('/prefetch.html', speculation('prefetch'))
  allowed.pages.set('/prerender.html', speculation('prerender'))
  allowed.pages.set(
    '/eventsource.html',
    page(`<script>const mark = ${done('es-done')}; const source = new EventSource('${b}/events');
      source.onerror = () => { source.close(); mark('error') }; source.onopen = () => mark('open')</script>`),
  )
  allowed.pages.set(
    '/beacon.html',
    page(
      `<script>navigator.sendBeacon('${b}/beacon', 'x'); navigator.sendBeacon('/beacon-ok', 'x')</script>`,
    ),
  )
  allowed.pages.set('/beacon-ok', '')
  allowed.pages.set('/popup.html', page(`<script>window.open('${b}/popup')</script>`))
  allowed.pages.set('/iframe.html', page(`<iframe src="${b}/secret"></iframe>`))
  allowed.pages.set('/fetch.html', page(`<script>fetch('${b}/fetched').catch(() => {})</script>`))
}

/** The two rules every vector must be sealed by. */
const rules: [string, () => Partial<BrowserSessionOptions>][] = [
  ['allowedDomains', () => ({ allowedDomains: [`127.0.0.1:${allowed.port}`] })],
  [
    'denied origins',
    () => ({ allowedDomains: undefined, deniedOrigins: [`127.0.0.1:${blocked.port}`] }) as never,
  ],
]

/** Observes until the page view shows `marker` (bounded by a number of observations, not a time). */
async function observeUntil(driver: Driver, marker: string): Promise<PageObservation> {
  for (let i = 0; i < 60; i++) {
    const observation = await driver.observe()
    if (observation.pageView.includes(marker)) return observation
  }
  throw new Error(`"${marker}" never appeared:\n${driver.view}`)
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  if (!check()) throw new Error('condition never held')
}

async function open(options: Partial<BrowserSessionOptions>, startUrl?: string): Promise<Driver> {
  return Driver.open(pool, { ...options, ...(startUrl ? { startUrl } : {}) })
}

function blockedHits(): string[] {
  return blocked.hits.splice(0)
}

describe.each(rules)('under %s, nothing reaches a blocked host', (_name, rule) => {
  test('through an HTTP redirect from an allowed page; the model reads why, promptly', async () => {
    blockedHits()
    const driver = await open(rule())
    try {
      const result = await driver.act('navigate', { url: `${allowed.origin}/redirect` })
      expect(result.ok).toBe(false)
      expect(result.text).toMatch(/^Navigation to .* refused: /)
      const observation = await driver.observe()
      expect(observation.pageView).toContain(`Sextant refused the request to 127.0.0.1:${blocked.port}`)
      expect(blockedHits()).toEqual([])
      expect(observation.pageView).not.toContain('Secret of the blocked host')
      expect(observation.notes.join('\n')).toContain(`127.0.0.1:${blocked.port}`)
    } finally {
      await driver.close()
    }
  })

  test('through a WebSocket', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/ws.html`)
    try {
      await observeUntil(driver, 'ws-done')
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('through a SharedWorker', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/shared.html`)
    try {
      const observation = await observeUntil(driver, 'shared-done')
      expect(blockedHits()).toEqual([])
      expect(observation.pageView).not.toContain('Secret')
    } finally {
      await driver.close()
    }
  })

  test('through a dedicated worker', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/worker.html`)
    try {
      const observation = await observeUntil(driver, 'worker-done')
      expect(blockedHits()).toEqual([])
      expect(observation.pageView).not.toContain('Secret')
    } finally {
      await driver.close()
    }
  })

  test('through a service worker', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/sw.html`)
    try {
      await observeUntil(driver, 'sw-done')
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test.each(['prefetch', 'prerender'])('through speculation-rules %s', async (kind) => {
    blockedHits()
    allowed.hits.splice(0)
    const driver = await open(rule(), `${allowed.origin}/${kind}.html`)
    try {
      // The allowed URL of the same rule set is fetched: the rules ran.
      await until(() => allowed.hits.includes(`/${kind}-ok`))
      await driver.observe()
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('through an EventSource', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/eventsource.html`)
    try {
      await observeUntil(driver, 'es-done')
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('through sendBeacon', async () => {
    blockedHits()
    allowed.hits.splice(0)
    const driver = await open(rule(), `${allowed.origin}/beacon.html`)
    try {
      await until(() => allowed.hits.includes('/beacon-ok'))
      await driver.observe()
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('through a popup', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/popup.html`)
    try {
      const observation = await driver.observe()
      await driver.observe()
      expect(blockedHits()).toEqual([])
      expect(observation.pageView).not.toContain('Secret')
    } finally {
      await driver.close()
    }
  })

  test('through WebRTC (STUN over UDP)', async () => {
    const udp = createSocket('udp4')
    const packets: number[] = []
    udp.on('message', (message) => packets.push(message.length))
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
    allowed.pages.set(
      '/webrtc.html',
      `<h1>Allowed</h1><iframe></iframe><script>const mark = ${done('rtc-done')};
      const frame = document.querySelector('iframe').contentWindow
      const popup = window.open()
      for (const [realm, name] of [[window, 'page'], [frame, 'iframe'], [popup, 'popup']]) {
        try {
          const pc = new realm.RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udp.address().port}' }] });
          pc.createDataChannel('x'); pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') mark(name + ' complete') };
          pc.createOffer().then((offer) => pc.setLocalDescription(offer))
        } catch (error) { mark(name + ' unavailable') }
      }</script>`,
    )
    const driver = await open(rule(), `${allowed.origin}/webrtc.html`)
    try {
      // Done when every realm said how it went, or as soon as a packet shows the boundary leaks.
      const realms = ['page', 'iframe', 'popup']
      let view = ''
      for (let i = 0; i < 60 && packets.length === 0; i++) {
        await driver.act('switch_tab', { tab: 't1' })
        view = (await driver.observe()).pageView
        if (realms.every((realm) => view.includes(`rtc-done ${realm}`))) break
      }
      expect(packets).toEqual([])
      for (const realm of realms) expect(view).toContain(`rtc-done ${realm} unavailable`)
    } finally {
      await driver.close()
      udp.close()
    }
  })

  test('through a cross-origin iframe, which read_page and find cannot read', async () => {
    blockedHits()
    const driver = await open(rule(), `${allowed.origin}/iframe.html`)
    try {
      const observation = await driver.observe()
      expect(observation.pageView).not.toContain('Secret')
      const read = await driver.act('read_page', {})
      expect(read.text).toContain('Allowed')
      expect(read.text).not.toContain('Secret')
      const found = await driver.act('find', { text: 'Secret' })
      expect(found.text).not.toContain('Secret of the blocked host')
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })
})

describe('what is allowed still works through the guard', () => {
  test('pages, subresources and a WebSocket on an allowed host', async () => {
    allowed.pages.set(
      '/ws-ok.html',
      page(`<script>const mark = ${done('ws-ok')}; const ws = new WebSocket('ws://127.0.0.1:${allowed.port}/echo');
        ws.onmessage = (event) => mark(event.data); ws.onerror = () => mark('error')</script>`),
    )
    for (const [name, rule] of rules) {
      const driver = await open(rule(), `${allowed.origin}/ws-ok.html`)
      try {
        const observation = await observeUntil(driver, 'ws-ok')
        expect(observation.pageView, name).toContain('ws-ok hello')
      } finally {
        await driver.close()
      }
    }
  })
})

describe('host rules', () => {
  test('host:port allows that port alone, for IPv6 literals too', async () => {
    const v6 = await spyHost('::1')
    const v6Other = await spyHost('::1')
    v6.pages.set(
      '/page.html',
      `<script>fetch('${v6Other.origin}/from-v6').catch(() => {})</script><p>v6 page</p>`,
    )
    const driver = await open({ allowedDomains: [`[::1]:${v6.port}`] })
    try {
      const opened = await driver.act('navigate', { url: `${v6.origin}/page.html` })
      expect(opened.ok).toBe(true)
      await observeUntil(driver, 'v6 page')
      const refused = await driver.act('navigate', { url: `${v6Other.origin}/` })
      expect(refused.ok).toBe(false)
      expect(v6Other.hits).toEqual([])
    } finally {
      await driver.close()
      await v6.close()
      await v6Other.close()
    }
  })

  test('*.host:port allows the host and its subdomains on that port, nothing else', async () => {
    blockedHits()
    const driver = await open({ allowedDomains: [`*.localhost:${allowed.port}`] })
    try {
      const sub = await driver.act('navigate', { url: `http://app.localhost:${allowed.port}/fetch.html` })
      expect(sub.ok).toBe(true)
      const apex = await driver.act('navigate', { url: `http://localhost:${allowed.port}/fetch.html` })
      expect(apex.ok).toBe(true)
      await driver.observe()
      const other = await driver.act('navigate', { url: `http://app.localhost:${blocked.port}/` })
      expect(other.ok).toBe(false)
      expect(blockedHits()).toEqual([])
    } finally {
      await driver.close()
    }
  })
})

const schemeUrls = [
  ['file:', 'file:///etc/hostname'],
  ['data:', 'data:text/html,<h1>Data page</h1>'],
  ['javascript:', 'javascript:document.write("<h1>Script page</h1>")'],
  ['view-source:', 'view-source:http://127.0.0.1/'],
  ['chrome:', 'chrome://version'],
  ['blob:', 'blob:http://127.0.0.1/00000000-0000-0000-0000-000000000000'],
] as const

describe('refused schemes', () => {
  test.each(schemeUrls)('a %s startUrl is refused with a note', async (scheme, url) => {
    const driver = await open({ allowedDomains: undefined } as never, url)
    try {
      const observation = await driver.observe()
      expect(observation.url).toBe('about:blank')
      expect(observation.notes.join('\n')).toContain(`${scheme} URLs are not allowed`)
    } finally {
      await driver.close()
    }
  })

  test.each(schemeUrls)('navigate and open_tab refuse %s', async (_scheme, url) => {
    const driver = await open({ allowedDomains: undefined } as never)
    try {
      expect((await driver.act('navigate', { url })).ok).toBe(false)
      expect((await driver.act('open_tab', { url })).ok).toBe(false)
      const observation = await driver.observe()
      expect(observation.url).toBe('about:blank')
      expect(observation.tabs).toHaveLength(1)
    } finally {
      await driver.close()
    }
  })

  test.each(['file:///etc/hostname', 'data:text/html,<h1>Data page</h1>'])(
    'an HTTP redirect to %s is not followed',
    async (target) => {
      allowed.pages.set('/scheme-redirect', (_request, response) => {
        response.writeHead(302, { location: target }).end()
      })
      const driver = await open({ allowedDomains: undefined } as never)
      try {
        await driver.act('navigate', { url: `${allowed.origin}/scheme-redirect` })
        const observation = await driver.observe()
        for (const tab of observation.tabs) expect(tab.url).toMatch(/^(http:|about:blank|chrome-error:)/)
        expect(observation.pageView).not.toContain('Data page')
      } finally {
        await driver.close()
      }
    },
  )

  const pageScripts = [
    ['file:', `location.href = 'file:///etc/hostname'`],
    ['data:', `window.open('data:text/html,<h1>Data page</h1>')`],
    ['blob:', `location.href = URL.createObjectURL(new Blob(['<h1>Blob page</h1>'], { type: 'text/html' }))`],
    [
      'blob: popup',
      `window.open(URL.createObjectURL(new Blob(['<h1>Blob page</h1>'], { type: 'text/html' })))`,
    ],
    ['view-source:', `window.open('view-source:${'http://127.0.0.1/'}')`],
    ['chrome:', `location.href = 'chrome://version'`],
  ] as const

  test.each(pageScripts)('a page script cannot open a %s page', async (_scheme, script) => {
    allowed.pages.set('/script-nav.html', `<h1>Allowed</h1><script>${script}</script>`)
    const driver = await open({ allowedDomains: undefined } as never, `${allowed.origin}/script-nav.html`)
    try {
      await driver.observe()
      const observation = await driver.observe()
      for (const tab of observation.tabs) expect(tab.url).toMatch(/^(http:|about:blank|chrome-error:)/)
      expect(observation.pageView).not.toMatch(/(Data|Blob|Script) page/)
    } finally {
      await driver.close()
    }
  })
})
