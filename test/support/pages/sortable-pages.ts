import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { libraryPage } from '../bundle.ts'
import { type PageServer, startPageServer } from '../page-server.ts'

/**
 * Sortable lists from real libraries, written as their demos and careless sites write them: jQuery UI's
 * `sortable` (a vertical list whose items differ in height, a horizontal one, a floated grid) served from
 * the npm packages' own dist files, SortableJS and dnd-kit (React) bundled at test time. Each page says the order in
 * `#order` (`Order: Item 2, Item 1, …`), as the page view shows it.
 */
export const sortablePaths = {
  jqueryList: '/jquery-list.html',
  jqueryRow: '/jquery-row.html',
  jqueryGrid: '/jquery-grid.html',
  sortableList: '/sortablejs-list.html',
  sortableRow: '/sortablejs-row.html',
  dndKitList: '/dnd-kit-list.html',
  dndKitRow: '/dnd-kit-row.html',
  dndKitGrid: '/dnd-kit-grid.html',
} as const

const require = createRequire(import.meta.url)

/** A package's browser build as its dist ships it; jQuery's exports name only dist/jquery.js, its minified build sits beside it. */
function dist(path: string, file?: string): Promise<string> {
  const resolved = require.resolve(path)
  return readFile(file ? resolved.replace(/[^/]+$/, file) : resolved, 'utf8')
}

function items(count: number, tall: (index: number) => boolean = () => false): string {
  return Array.from({ length: count }, (_, index) => {
    const note = tall(index) ? '<br><small>two lines, as a note makes it</small>' : ''
    return `<li class="ui-state-default">Item ${index + 1}${note}</li>`
  }).join('')
}

/** The order as the page says it, from each item's first text (its name). */
const showOrder = `function show() {
  const list = document.getElementById('sortable')
  document.getElementById('order').textContent = 'Order: ' +
    Array.from(list.children, (item) => item.firstChild.textContent.trim()).join(', ')
}
show()`

async function jqueryPage(title: string, style: string, list: string): Promise<string> {
  const [jquery, jqueryUi] = await Promise.all([
    dist('jquery', 'jquery.min.js'),
    dist('jquery-ui/dist/jquery-ui.min.js'),
  ])
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; } #sortable { list-style-type: none; margin: 0; padding: 0; } ${style}</style>
<script>${jquery}</script><script>${jqueryUi}</script></head><body>
<h1>${title}</h1><ul id="sortable">${list}</ul><p id="order"></p>
<script>${showOrder}
$('#sortable').sortable({ update: show })</script></body></html>`
}

/** The pages by path, for a server of a test's own. */
export async function sortablePages(): Promise<Record<string, string>> {
  const dndKit = (layout: string) =>
    libraryPage({
      entry: 'dnd-kit-list.jsx',
      title: 'Sorted by dnd-kit',
      body: `<div id="root" data-layout="${layout}"></div>`,
    })
  const [jqueryList, jqueryRow, jqueryGrid, sortableList, sortableRow, dndKitList, dndKitRow, dndKitGrid] =
    await Promise.all([
      jqueryPage(
        'Tasks',
        '#sortable { width: 60%; } #sortable li { margin: 0 3px 3px 3px; padding: 0.4em; font-size: 1.1em; border: 1px solid #ccc; background: #f6f6f6; }',
        items(10, (index) => index % 4 === 1),
      ),
      jqueryPage(
        'Toolbar order',
        '#sortable li { display: inline-block; margin: 3px; padding: 10px 14px; border: 1px solid #ccc; background: #f6f6f6; }',
        items(8),
      ),
      jqueryPage(
        'Photo grid',
        '#sortable { width: 560px; } #sortable li { margin: 3px 3px 3px 0; padding: 1px; float: left; width: 100px; height: 90px; font-size: 1.4em; text-align: center; border: 1px solid #ccc; background: #f6f6f6; } #order { clear: both; }',
        items(15),
      ),
      libraryPage({
        entry: 'sortable-lists.js',
        title: 'Sorted by SortableJS',
        body: '<div id="root" data-layout="column"></div>',
      }),
      libraryPage({
        entry: 'sortable-lists.js',
        title: 'Sorted by SortableJS',
        body: '<div id="root" data-layout="row"></div>',
      }),
      dndKit('column'),
      dndKit('row'),
      dndKit('grid'),
    ])
  return {
    [sortablePaths.jqueryList]: jqueryList,
    [sortablePaths.jqueryRow]: jqueryRow,
    [sortablePaths.jqueryGrid]: jqueryGrid,
    [sortablePaths.sortableList]: sortableList,
    [sortablePaths.sortableRow]: sortableRow,
    [sortablePaths.dndKitList]: dndKitList,
    [sortablePaths.dndKitRow]: dndKitRow,
    [sortablePaths.dndKitGrid]: dndKitGrid,
  }
}

export async function startSortablePages(): Promise<PageServer> {
  return startPageServer({ pages: await sortablePages() })
}
