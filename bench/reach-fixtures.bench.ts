import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../src/browser/launch/launcher.ts'
import { buildPageView } from '../src/browser/view/page-view.ts'
import { RefRegistry } from '../src/browser/view/stable-refs.ts'
import { countTokens } from '../src/util/tokens.ts'
import { hasMediaWiki, type MediaWiki, startMediaWiki } from '../test/support/apps/mediawiki.ts'
import { startNodeRed, tickFlows } from '../test/support/apps/node-red.ts'
import { hasWordPress, startWordPress, type WordPress } from '../test/support/apps/wordpress.ts'
import { libraryPage } from '../test/support/bundle.ts'
import { startPageServer } from '../test/support/page-server.ts'
import { reachPaths, startReachPages } from '../test/support/reach-pages.ts'
import { startWidgetPages, widgetPaths } from '../test/support/widget-pages.ts'

/**
 * Per fixture of issue 33 (real libraries bundled at test time, and the careless hand-written pages), at
 * the page state where the task's next action is decided: raw Playwright's AI snapshot
 * (`ariaSnapshot({ mode: 'ai' })`) beside Sextant's view, their o200k tokens, and whether each gives
 * the element that action needs a ref the model can tell apart (a line naming it, with a ref).
 * Whether the task succeeds through Sextant is the HTTP tests' answer (test/server/widgets/*.test.ts).
 *
 * A fixture on a real application (WordPress, MediaWiki from Debian) starts it only when chosen (test/support/apps/).
 *
 *   node bench/reach-fixtures.bench.ts [filter…] [--show]   (--show prints both texts)
 */

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const fixtures = join(root, 'test', 'fixtures')
const signal = new AbortController().signal

interface Fixture {
  name: string
  /** The action the state calls for, in words. */
  needs: string
  url: (origins: Origins) => string
  /** Brings the page to the state, as the task's earlier steps would. */
  reach?: (page: Page, origins: Origins) => Promise<void>
  /** The element the action needs, with a ref, as a line of each text shows it. */
  raw: RegExp
  view: RegExp
  /** A real application the fixture needs, started only when the fixture is chosen. */
  app?: 'wordpress' | 'mediawiki'
}

interface Origins {
  reach: string
  widgets: string
  library: string
  site: string
  nodeRed: string
  wordpress?: WordPress
  mediawiki?: MediaWiki
}

/** Whether each real application is installed here, and how to start it. */
const apps = {
  wordpress: { present: hasWordPress, start: startWordPress },
  mediawiki: { present: hasMediaWiki, start: startMediaWiki },
}

function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('The fixture needs an application that was not started.')
  return value
}

const settle = (page: Page) => page.waitForTimeout(600)

const list: Fixture[] = [
  {
    name: 'Quill (rich text)',
    needs: "click the toolbar's bold button",
    url: (o) => `${o.reach}${reachPaths.quill}`,
    reach: async (page) => {
      await page.locator('.ql-editor').fill('Hello world')
      await settle(page)
    },
    raw: /button "[^"]*bold[^"]*"[^\n]*\[ref=/i,
    view: /button \[icon=bold\] \[ref=/,
  },
  {
    name: 'CodeMirror 6',
    needs: 'type into the editor',
    url: (o) => `${o.reach}${reachPaths.codemirror}`,
    raw: /textbox[^\n]*\[ref=/,
    view: /textbox[^\n]*\[ref=/,
  },
  {
    name: 'Shoelace dialog + select',
    needs: 'pick an option in the open select (shadow DOM)',
    url: (o) => `${o.reach}${reachPaths.shoelace}`,
    reach: async (page) => {
      await page.click('#open')
      await settle(page)
      await page.getByRole('combobox').click()
      await settle(page)
    },
    raw: /option "System"[^\n]*\[ref=/,
    view: /option "System"[^\n]*\[ref=/,
  },
  {
    name: 'react-contexify',
    needs: 'right-click notes.txt (React wires onContextMenu)',
    url: (o) => `${o.reach}${reachPaths.contexify}`,
    raw: /listitem \[ref=\w+\]: notes\.txt/,
    view: /listitem \[contextmenu\] \[ref=\w+\]: notes\.txt/,
  },
  {
    name: 'react-select',
    needs: 'pick an option in the open menu',
    url: (o) => `${o.widgets}${widgetPaths.reactSelect}`,
    reach: async (page) => {
      await page.getByRole('combobox').click()
      await settle(page)
    },
    raw: /option "Apple"[^\n]*\[ref=/,
    view: /option "Apple"[^\n]*\[ref=/,
  },
  {
    name: 'Radix Select (28 options)',
    needs: 'pick the last option, the list scrolled to its end',
    url: (o) => `${o.widgets}${widgetPaths.radixSelect}`,
    reach: async (page) => {
      await page.getByRole('combobox').click()
      await settle(page)
      // As a person scrolls it (and the scroll action once Radix undoes a scripted scroll): the wheel over the list.
      await page.getByRole('listbox').hover()
      await page.mouse.wheel(0, 2000)
      await settle(page)
    },
    raw: /option "Vietnam"[^\n]*\[ref=/,
    view: /option "Vietnam"[^\n]*\[ref=/,
  },
  {
    name: 'AG Grid',
    needs: 'double-click a cell',
    url: (o) => `${o.widgets}${widgetPaths.agGrid}`,
    raw: /gridcell "Customer 3"[^\n]*\[ref=/,
    view: /gridcell "Customer 3"[^\n]*\[ref=/,
  },
  {
    name: 'react-window (5,000 rows)',
    needs: 'click a rendered row',
    url: (o) => `${o.widgets}${widgetPaths.reactWindow}`,
    raw: /\[ref=[^\]]+\][^\n]*Invoice #00003/,
    view: /\[ref=[^\]]+\][^\n]*Invoice #00003/,
  },
  {
    name: 'SortableJS',
    needs: 'drag an item onto another',
    url: (o) => `${o.library}/sortable`,
    raw: /listitem[^\n]*\[ref=[^\n]*Apples/,
    view: /listitem[^\n]*\[draggable\][^\n]*\[ref=[^\n]*Apples/,
  },
  {
    name: 'flatpickr',
    needs: 'click a day',
    url: (o) => `${o.library}/flatpickr`,
    raw: /"March 20, 2026"[^\n]*\[ref=/,
    view: /"March 20, 2026"[^\n]*\[ref=/,
  },
  {
    name: 'careless right-click li',
    needs: 'right-click notes.txt',
    url: (o) => `${o.site}/listeners.html`,
    raw: /listitem \[ref=\w+\]: notes\.txt/,
    view: /\[contextmenu\] \[ref=\w+\]: notes\.txt/,
  },
  {
    name: 'careless hover submenu',
    needs: 'hover Export',
    url: (o) => `${o.site}/late/careless-submenu.html`,
    raw: /\[ref=\w+\][^\n]*Export/,
    view: /\[hover\] \[ref=\w+\][^\n]*Export/,
  },
  {
    name: 'careless feed panel',
    needs:
      "like @quinn_harper's post below the panel's fold (view: scroll the panel naming it; raw: its Like)",
    url: (o) => `${o.site}/reach/panels.html`,
    // Raw lists the whole feed, each post one generic with a ref, but no line or ref for a post's Like span.
    raw: /@quinn_harper[^\n]*\n\s*- \w+ "Like"[^\n]*\[ref=/,
    view: /\[scrollable\] \[[^\n]*just below: [^\n]*@quinn_harper[^\n]*\[ref=\w+\]/,
  },
  {
    name: 'Node-RED (flow editor)',
    needs: 'double-click the node Tick on the SVG canvas',
    url: (o) => `${o.nodeRed}/`,
    reach: async (page) => {
      await page.locator('.red-ui-flow-node-group').first().waitFor()
      await settle(page)
    },
    // The node's group, with its label on a line nested under it (after its trigger button's line).
    raw: /^( *)- generic \[ref=\w+\]:\n(?:\1 {2,}- [^\n]*\n)?\1 {2,}- generic: Tick$/m,
    view: /^( *)- generic [^\n]*\[ref=\w+\]\n(?:\1 {2,}- [^\n]*\n)?\1 {2,}- text: Tick$/m,
  },
  {
    name: 'WordPress 6.1 block editor (Debian)',
    needs: "click the pre-publish panel's Publish (a fixed panel)",
    app: 'wordpress',
    url: (o) => `${started(o.wordpress).url}/wp-login.php`,
    reach: async (page, origins) => {
      const { url, admin } = started(origins.wordpress)
      await page.fill('#user_login', admin.user)
      await page.fill('#user_pass', admin.password)
      await Promise.all([page.waitForURL(/wp-admin/), page.click('#wp-submit')])
      await page.goto(`${url}/wp-admin/post-new.php`, { waitUntil: 'load' })
      await page.getByRole('button', { name: 'Close dialog' }).click()
      await page.getByRole('textbox', { name: 'Add title' }).fill('Notes from the sextant')
      await page.keyboard.press('Enter')
      await page.keyboard.type('Every step is observed, thought and acted.')
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByText('Are you ready to publish?').waitFor()
      await settle(page)
    },
    raw: /button "Publish" \[active\] \[ref=/,
    view: /button "Publish" \[active\] \[ref=/,
  },
  {
    name: 'MediaWiki 1.39 edit page (Debian)',
    needs: 'type into the wikitext editor',
    app: 'mediawiki',
    url: (o) => `${started(o.mediawiki).url}/index.php?title=Main_Page&action=edit`,
    raw: /textbox "Wikitext source editor"[^\n]*\[ref=/,
    view: /textbox "Wikitext source editor"[^\n]*\[ref=/,
  },
  {
    name: 'WordPress posts list row actions',
    needs: 'click the Trash link of "Hello world!" (shown while its row is hovered)',
    url: (o) => `${o.site}/hover/wp-posts.html`,
    raw: /"Move “Hello world!” to the Trash"[^\n]*\[ref=/,
    view: /"Move “Hello world!” to the Trash" \[on hover\][^\n]*\[ref=/,
  },
  {
    name: 'careless save (page log)',
    needs: 'click Save, a plain div with a click listener',
    url: (o) => `${o.site}/page-log/careless-save.html`,
    raw: /\[ref=\w+\][^\n]*Save/,
    view: /\[clickable\] \[ref=\w+\][^\n]*Save/,
  },
]

async function serveSite() {
  const pages: Record<string, string> = {}
  for (const path of [
    'listeners.html',
    'late/careless-submenu.html',
    'reach/panels.html',
    'hover/wp-posts.html',
    'page-log/careless-save.html',
  ])
    pages[`/${path}`] = await readFile(join(fixtures, path), 'utf8')
  return startPageServer({ pages })
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
  const [reach, widgets, library, site, nodeRed] = await Promise.all([
    startReachPages(),
    startWidgetPages(),
    Promise.all([
      libraryPage({ entry: 'sortable-list.js', title: 'Groceries' }),
      libraryPage({
        entry: 'flatpickr-month.js',
        title: 'Booking',
        css: ['flatpickr/dist/flatpickr.css'],
        body: '<input id="when" aria-label="When"><p id="said"></p>',
      }),
    ]).then(([sortable, flatpickr]) =>
      startPageServer({ pages: { '/sortable': sortable, '/flatpickr': flatpickr } }),
    ),
    serveSite(),
    startNodeRed(tickFlows),
  ])
  const wanted = list.filter((each) => filters.every((filter) => each.name.includes(filter)))
  // A real application comes from Debian (./dev test installs it): without it its fixture is named, not measured.
  const chosen = wanted.filter((each) => each.app === undefined || apps[each.app].present())
  for (const each of wanted.filter((fixture) => !chosen.includes(fixture)))
    console.log(`${each.name}: skipped, Debian's ${each.app} is not installed`)
  const origins: Origins = {
    reach: reach.url,
    widgets: widgets.url,
    library: library.url,
    site: site.url,
    nodeRed: nodeRed.url,
    ...(chosen.some((each) => each.app === 'wordpress') ? { wordpress: await apps.wordpress.start() } : {}),
    ...(chosen.some((each) => each.app === 'mediawiki') ? { mediawiki: await apps.mediawiki.start() } : {}),
  }
  const browser = await launchBrowser({})
  let rawTotal = 0
  let viewTotal = 0
  console.log(
    'fixture | state: the action it needs | raw tokens | view tokens | view/raw | raw: ref for it | view: ref for it',
  )
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
    for (const fixture of chosen) {
      await page.goto(fixture.url(origins), { waitUntil: 'load' })
      await settle(page)
      await fixture.reach?.(page, origins)
      const raw = await page.ariaSnapshot({ mode: 'ai', timeout: 30_000 })
      const view = (await buildPageView(page, new RefRegistry(), { tabs: [] }, signal)).text
      const [rawTokens, viewTokens] = [countTokens(raw), countTokens(view)]
      rawTotal += rawTokens
      viewTotal += viewTokens
      if (process.argv.includes('--show')) console.log(`${raw}\n${view}`)
      console.log(
        `${fixture.name} | ${fixture.needs} | ${rawTokens} | ${viewTokens} | ${(viewTokens / rawTokens).toFixed(2)}× | ` +
          `${fixture.raw.test(raw) ? 'yes' : 'no'} | ${fixture.view.test(view) ? 'yes' : 'no'}`,
      )
    }
  } finally {
    await browser.close()
    await Promise.all([
      reach.close(),
      widgets.close(),
      library.close(),
      site.close(),
      nodeRed.close(),
      origins.wordpress?.stop(),
      origins.mediawiki?.stop(),
    ])
  }
  console.log(`total | | ${rawTotal} | ${viewTotal} | ${(viewTotal / rawTotal).toFixed(2)}× | |`)
}

await main()
