import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../src/browser/launch/launcher.ts'
import { sessionContextOptions } from '../src/browser/session/session-context.ts'

/**
 * The saved real-world pages (../shared/pages/real-world), served on
 * 127.0.0.1 to one page of a fresh browser that reaches nothing else: the
 * benches that measure the view on them share this setup.
 */

const root = dirname(dirname(fileURLToPath(import.meta.url)))

// Beside the checkout (/work/main) or beside its worktrees folder (/work/wt/<name>).
export const pagesDir =
  [join(root, '..', 'shared'), join(root, '..', '..', 'shared')]
    .map((shared) => join(shared, 'pages', 'real-world'))
    .find((dir) => existsSync(dir)) ?? join(root, '..', 'shared', 'pages', 'real-world')

export interface SavedPages {
  /** The pages' file names, sorted, those matching a filter when any is given. */
  names: string[]
  origin: string
  browser: Browser
  page: Page
  close(): Promise<void>
}

export async function openSavedPages(filters: string[] = []): Promise<SavedPages> {
  const names = (await readdir(pagesDir))
    .filter((file) => file.endsWith('.html'))
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
    .sort()
  const server = createServer(async (request, response) => {
    const file = join(pagesDir, decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))
    if (!file.startsWith(pagesDir)) return void response.writeHead(403).end()
    try {
      const body = await readFile(file)
      response.writeHead(200, {
        'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream',
      })
      response.end(body)
    } catch {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const browser = await launchBrowser()
  const context = await browser.newContext(sessionContextOptions({ runId: 'bench' }))
  // The saved pages reference remote scripts, images and fonts: nothing may leave the machine.
  await context.route('**/*', (route) =>
    new URL(route.request().url()).host === new URL(origin).host
      ? route.fallback()
      : route.abort('blockedbyclient'),
  )
  const page = await context.newPage()
  return {
    names,
    origin,
    browser,
    page,
    close: async () => {
      await browser.close()
      server.close()
    },
  }
}
