import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { libraryPage } from './bundle.ts'
import { type PageServer, startPageServer } from './page-server.ts'

/**
 * Pages with widgets that scroll their own content, from real libraries (bundled at test time) and one
 * careless hand-written list: react-select's menu, AG Grid's data grid, react-window's virtualized list,
 * and 28 options scrolling in a plain div inside a listbox.
 */
export const widgetPaths = {
  fruitList: '/fruit-list.html',
  reactSelect: '/react-select.html',
  agGrid: '/ag-grid.html',
  reactWindow: '/react-window.html',
} as const

export async function startWidgetPages(): Promise<PageServer> {
  const [fruitList, reactSelect, agGrid, reactWindow] = await Promise.all([
    readFile(fileURLToPath(new URL('../fixtures/fruit-list.html', import.meta.url)), 'utf8'),
    libraryPage({ entry: 'react-select.jsx', title: 'Order fruit' }),
    libraryPage({
      entry: 'ag-grid.js',
      title: 'Customers',
      body: '<h1>Customers</h1><div id="grid" style="width:640px;height:300px"></div><p id="log">Nothing yet</p>',
    }),
    libraryPage({ entry: 'react-window.jsx', title: 'Invoices' }),
  ])
  return startPageServer({
    pages: {
      [widgetPaths.fruitList]: fruitList,
      [widgetPaths.reactSelect]: reactSelect,
      [widgetPaths.agGrid]: agGrid,
      [widgetPaths.reactWindow]: reactWindow,
    },
  })
}
