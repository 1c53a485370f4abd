import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { rolldown } from 'rolldown'

/**
 * Fixtures built from real component libraries (dev dependencies), bundled at
 * test time with rolldown (no install script), so a test exercises the
 * library's own DOM and event wiring rather than an imitation of it. Entries
 * live in test/fixtures/libraries/ and may be JSX/TSX; a CSS file the library
 * ships is inlined by naming it in `css` (a package path such as
 * 'react-datepicker/dist/react-datepicker.css').
 */

export const librariesDir = fileURLToPath(new URL('../fixtures/libraries/', import.meta.url))

export interface LibraryPage {
  /** The entry file, relative to test/fixtures/libraries/. */
  entry: string
  title: string
  /** CSS files resolved from node_modules (or absolute), inlined in <head> in this order. */
  css?: string[]
  /** Extra markup in <body> before the script (the entry usually mounts into #root). */
  body?: string
}

/** One self-contained HTML page: the entry bundled as an IIFE, its CSS inlined. */
export async function libraryPage(page: LibraryPage): Promise<string> {
  const bundle = await rolldown({
    input: fileURLToPath(new URL(page.entry, `file://${librariesDir}`)),
    platform: 'browser',
    // React and most libraries branch on NODE_ENV; the production build is what sites ship.
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    logLevel: 'silent',
  })
  try {
    const { output } = await bundle.generate({ format: 'iife', minify: false })
    const script = output[0].code
    const styles = await Promise.all((page.css ?? []).map(readCss))
    return [
      '<!doctype html><html><head><meta charset="utf-8">',
      `<title>${page.title}</title>`,
      ...styles.map((css) => `<style>${css}</style>`),
      '</head><body>',
      page.body ?? '<div id="root"></div>',
      // A closing script tag inside the bundle's strings would end the element early.
      `<script>${script.replaceAll('</script', '<\\/script')}</script>`,
      '</body></html>',
    ].join('\n')
  } finally {
    await bundle.close()
  }
}

async function readCss(path: string): Promise<string> {
  const file = path.startsWith('/') ? path : fileURLToPath(import.meta.resolve(path))
  return readFile(file, 'utf8')
}
