import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import type {
  BrowserSession,
  BrowserSessionOptions,
  PageObservation,
} from '../../../src/browser/browser-session.ts'
import { type BrowserPool, createBrowserPool } from '../../../src/browser/launch/launcher.ts'
import type { SecretRevealer, ToolResult } from '../../../src/tool.ts'
import { serveFolder } from '../../support/page-server.ts'
import { sharedLaunch } from '../../support/suite/shared-browser.ts'

export const fixturesDir = fileURLToPath(new URL('../../fixtures/', import.meta.url))

/** A pool over the worker's shared browser (its close() closes the file's sessions alone); every session only reaches 127.0.0.1. */
export function testPool(): BrowserPool {
  return createBrowserPool({}, sharedLaunch)
}

/** The fixtures, served, and a browser pool for a test file: opened before its tests, closed after them. */
export function servedFixtures(): { readonly pool: BrowserPool; readonly url: string } {
  const opened: { pool?: BrowserPool; url?: string; close?: () => Promise<void> } = {}
  beforeAll(async () => {
    const server = await serveFolder(fixturesDir)
    opened.url = server.url
    opened.close = () => server.close()
    opened.pool = testPool()
  })
  afterAll(async () => {
    await opened.pool?.close()
    await opened.close?.()
  })
  const missing = () => new Error('servedFixtures() is read by a test before its beforeAll ran')
  return {
    get pool() {
      if (!opened.pool) throw missing()
      return opened.pool
    },
    get url() {
      if (opened.url === undefined) throw missing()
      return opened.url
    },
  }
}

export interface ViewLine {
  indent: number
  isNew: boolean
  role: string
  name: string
  ref: string
  line: string
}

/** The lines of a page view that carry a ref, parsed back into role, name and ref. */
export function parseView(view: string): ViewLine[] {
  const lines: ViewLine[] = []
  for (const line of view.split('\n')) {
    const match = /^( *)([-*]) (\S+)(?: "((?:[^"\\]|\\.)*)")?.*?\[ref=(\w+)\]/.exec(line)
    if (!match) continue
    lines.push({
      indent: match[1]!.length / 2,
      isNew: match[2] === '*',
      role: match[3]!,
      name: match[4] === undefined ? '' : (JSON.parse(`"${match[4]}"`) as string),
      ref: match[5]!,
      line,
    })
  }
  return lines
}

/** A session driven only through its observations and action tools, as the agent drives it. */
export class Driver {
  readonly session: BrowserSession
  last: PageObservation | undefined
  readonly #signal = new AbortController().signal

  constructor(session: BrowserSession) {
    this.session = session
  }

  static async open(pool: BrowserPool, options: Partial<BrowserSessionOptions> = {}): Promise<Driver> {
    const session = await pool.newSession(
      { runId: 'test', allowedDomains: ['127.0.0.1'], ...options },
      new AbortController().signal,
    )
    return new Driver(session)
  }

  async observe(): Promise<PageObservation> {
    this.last = await this.session.observe(this.#signal)
    return this.last
  }

  get view(): string {
    if (!this.last) throw new Error('observe() first')
    return this.last.pageView
  }

  async act(tool: string, input: Record<string, unknown>, signal = this.#signal): Promise<ToolResult> {
    return this.actWith(undefined, tool, input, signal)
  }

  /** `act` in a run that has these secrets (revealed by the tools as a run's are). */
  async actWith(
    secrets: SecretRevealer | undefined,
    tool: string,
    input: Record<string, unknown>,
    signal = this.#signal,
  ): Promise<ToolResult> {
    const found = this.session.tools().find((candidate) => candidate.name === tool)
    if (!found) throw new Error(`no tool ${tool}`)
    return found.execute(found.input.parse(input), {
      signal,
      runId: 'test',
      step: 1,
      callId: 'c1',
      emit: () => {},
      ...(secrets ? { secrets } : {}),
    })
  }

  /** The ref of the first element in the latest view with this role and name (exact, or matching). */
  ref(role: string, name: string | RegExp): string {
    const line = parseView(this.view).find(
      (candidate) =>
        candidate.role === role &&
        (typeof name === 'string' ? candidate.name === name : name.test(candidate.name)),
    )
    if (!line) throw new Error(`No ${role} ${String(name)} in the page view:\n${this.view}`)
    return line.ref
  }

  refs(): ViewLine[] {
    return parseView(this.view)
  }

  /** The names of the elements with this role in the latest view, in view order. */
  names(role: string): string[] {
    return this.refs()
      .filter((line) => line.role === role)
      .map((line) => line.name)
  }

  close(): Promise<void> {
    return this.session.close()
  }
}
