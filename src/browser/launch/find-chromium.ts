import { accessSync, constants, readdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

/** No Chromium could be found; the message says how to install one. */
export class BrowserNotFoundError extends Error {
  override name = 'BrowserNotFoundError'
  readonly searched: string[]

  constructor(searched: string[], detail?: string) {
    super(
      [
        detail ?? 'No Chromium or Chrome browser was found.',
        'Install one:',
        '  Debian/Ubuntu: sudo apt-get install chromium',
        '  macOS:         brew install --cask chromium',
        '  any system:    npx playwright-core install chromium',
        'or point SEXTANT_CHROMIUM at a Chrome/Chromium executable.',
      ].join('\n'),
    )
    this.searched = searched
  }
}

export interface FindChromiumOptions {
  /** Wins over everything else. */
  executablePath?: string | undefined
  /** Where `executablePath` came from, named if it is not an executable (default: "the executablePath option"). */
  executablePathSource?: string | undefined
  /** Playwright's browser cache (PLAYWRIGHT_BROWSERS_PATH, read by config.ts); default: the per-user cache. */
  browsersPath?: string | undefined
  /** The program search path, as in PATH (default: this process's PATH). */
  searchPath?: string | undefined
  platform?: NodeJS.Platform
  home?: string
}

/**
 * Finds a Chromium executable, in this order: the explicit path (the
 * executablePath option or SEXTANT_CHROMIUM), Playwright's browser cache
 * (newest first), /usr/bin/chromium, chromium-browser (and chromium) on PATH,
 * Google Chrome.
 */
export function findChromium(options: FindChromiumOptions = {}): string {
  const explicit = options.executablePath
  if (explicit) {
    if (isExecutable(explicit)) return explicit
    const source = options.executablePathSource ?? 'the executablePath option'
    throw new BrowserNotFoundError(
      [explicit],
      `${source} points at ${explicit}, which is not an executable file.`,
    )
  }
  // PATH is the operating system's, not a Sextant setting: it is read where programs are looked up.
  const searchPath = options.searchPath ?? process.env.PATH ?? ''
  const candidates = [
    ...playwrightCache(options.browsersPath, options.platform ?? process.platform, options.home ?? homedir()),
    '/usr/bin/chromium',
    ...onPath(searchPath, ['chromium-browser', 'chromium']),
    ...onPath(searchPath, ['google-chrome', 'google-chrome-stable']),
    '/opt/google/chrome/chrome',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ]
  const found = candidates.find(isExecutable)
  if (found) return found
  throw new BrowserNotFoundError(candidates)
}

function playwrightCache(
  browsersPath: string | undefined,
  platform: NodeJS.Platform,
  home: string,
): string[] {
  const root =
    browsersPath && browsersPath !== '0'
      ? browsersPath
      : platform === 'darwin'
        ? join(home, 'Library', 'Caches', 'ms-playwright')
        : join(home, '.cache', 'ms-playwright')
  const versions = listDir(root)
    .filter((name) => /^chromium-\d+$/.test(name))
    .sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]))
  return versions.flatMap((version) => {
    const folder = join(root, version)
    if (platform === 'darwin') {
      return listDir(folder)
        .filter((name) => name.startsWith('chrome-mac'))
        .flatMap((name) => [
          join(folder, name, 'Chromium.app', 'Contents', 'MacOS', 'Chromium'),
          join(
            folder,
            name,
            'Google Chrome for Testing.app',
            'Contents',
            'MacOS',
            'Google Chrome for Testing',
          ),
        ])
    }
    return listDir(folder)
      .filter((name) => name.startsWith('chrome-linux'))
      .map((name) => join(folder, name, 'chrome'))
  })
}

function onPath(searchPath: string, names: string[]): string[] {
  const folders = searchPath.split(delimiter).filter(Boolean)
  return names.flatMap((name) => folders.map((folder) => join(folder, name)))
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}
