import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { testPool } from './harness.ts'

/** What a test file of pictures needs: its pages served, sessions to picture them, and a browser that decodes JPEGs. */
export interface PictureHarness {
  readonly server: PageServer
  readonly pool: BrowserPool
  /** Decodes the pictures (`jpegRegion`), and draws pages as Chromium alone would. */
  readonly decoder: Browser
  readonly decoderPage: Page
}

/** Starts the harness before the file's tests and stops it after them; its parts are there once they run. */
export function usePictureHarness(pages: Record<string, string>): PictureHarness {
  let parts: PictureHarness | undefined
  beforeAll(async () => {
    const decoder = await borrowBrowser()
    parts = {
      server: await startPageServer({ pages }),
      pool: testPool(),
      decoder,
      decoderPage: await decoder.newPage(),
    }
  })
  afterAll(async () => {
    await parts?.pool.close()
    await parts?.decoder.close()
    await parts?.server.close()
  })
  const ready = (): PictureHarness => {
    if (!parts) throw new Error('the picture harness is used before its tests run')
    return parts
  }
  return {
    get server() {
      return ready().server
    },
    get pool() {
      return ready().pool
    },
    get decoder() {
      return ready().decoder
    },
    get decoderPage() {
      return ready().decoderPage
    },
  }
}
