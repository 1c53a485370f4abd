import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { libraryPage } from './bundle.ts'
import { type PageServer, startPageServer } from './page-server.ts'

/**
 * Pages with widgets that scroll their own content, from real libraries (bundled at test time) and two
 * careless hand-written lists: react-select's menu, Radix UI's Select, AG Grid's data grid, react-window's
 * virtualized list, 28 options scrolling in a plain div inside a listbox, and 28 in a viewport marked
 * `role="presentation"`, which the snapshot leaves out, lifting its options beside it.
 */
export const widgetPaths = {
  fruitList: '/fruit-list.html',
  countryList: '/country-list.html',
  reactSelect: '/react-select.html',
  radixSelect: '/radix-select.html',
  agGrid: '/ag-grid.html',
  reactWindow: '/react-window.html',
} as const

export async function startWidgetPages(): Promise<PageServer> {
  const fixture = (path: string) =>
    readFile(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), 'utf8')
  const [fruitList, countryList, reactSelect, radixSelect, agGrid, reactWindow] = await Promise.all([
    fixture('fruit-list.html'),
    fixture('widgets/country-list.html'),
    libraryPage({ entry: 'react-select.jsx', title: 'Order fruit' }),
    libraryPage({ entry: 'radix-select.jsx', title: 'Shipping' }),
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
      [widgetPaths.countryList]: countryList,
      [widgetPaths.reactSelect]: reactSelect,
      [widgetPaths.radixSelect]: radixSelect,
      [widgetPaths.agGrid]: agGrid,
      [widgetPaths.reactWindow]: reactWindow,
    },
  })
}
