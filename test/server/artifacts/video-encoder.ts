import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * Playwright renders a video with its own ffmpeg build, which `npx playwright install ffmpeg` downloads
 * into its browser cache. That download is out of reach here; the same encoder (VP8) ships in an npm
 * package, and is put where Playwright looks for its own, as the install would: once, only when absent.
 */
export function ensurePlaywrightFfmpeg(): void {
  const require = createRequire(import.meta.url)
  const root = dirname(require.resolve('playwright-core/package.json'))
  const browsers = JSON.parse(readFileSync(join(root, 'browsers.json'), 'utf8')) as {
    browsers: { name: string; revision: string }[]
  }
  const revision = browsers.browsers.find((browser) => browser.name === 'ffmpeg')?.revision
  if (!revision || process.platform !== 'linux' || process.arch !== 'x64') return
  const cache =
    process.env.PLAYWRIGHT_BROWSERS_PATH ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ms-playwright')
  const target = join(cache, `ffmpeg-${revision}`, 'ffmpeg-linux')
  if (existsSync(target)) return
  mkdirSync(dirname(target), { recursive: true })
  symlinkSync(require.resolve('@ffmpeg-installer/linux-x64/ffmpeg'), target)
}
