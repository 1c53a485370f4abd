import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import type {
  BrowserSession,
  BrowserSessionOptions,
  PageObservation,
} from '../../src/browser/browser-session.ts'
import { type AnyTool, defineTool, sleep } from '../../src/tool.ts'

/**
 * A stand-in browser for the loop's unit tests (the browser layer has its own
 * tests against real Chromium). Its page is a counter that `click` changes.
 */
export interface FakeBrowser extends BrowserSession {
  closed: number
  observed: number
  calls: { tool: string; input: unknown }[]
}

export function fakeBrowser(
  options: {
    slowToolIgnoresAbort?: boolean
    observe?: (signal: AbortSignal) => Promise<void>
    /** Screenshots, live frames and a person's input, without Chromium: for tests of the routes that serve them. */
    pictures?: boolean
    /** The session's keepDownload: a `download_file` tool saves a file and hands it on, as Chromium's downloads do. */
    keepDownload?: BrowserSessionOptions['keepDownload']
    /**
     * The session's artifacts, without Chromium (for tests of where they are kept and served): a HAR
     * naming each step it was told of. Real recordings are test/server/artifacts/'s.
     */
    artifacts?: BrowserSessionOptions['artifacts']
  } = {},
): FakeBrowser {
  let clicks = 0
  const browser: FakeBrowser = {
    ...(options.pictures ? fakePictures(() => browser) : {}),
    closed: 0,
    observed: 0,
    calls: [],
    async observe(signal): Promise<PageObservation> {
      browser.observed++
      await options.observe?.(signal)
      signal.throwIfAborted()
      const pageView = `URL: http://fake.test/\n- button "Add" [ref=b1] (clicked ${clicks} times)`
      return {
        url: 'http://fake.test/',
        title: 'Fake',
        tabs: [{ id: 't1', url: 'http://fake.test/', title: 'Fake', active: true }],
        refs: 1,
        pageView,
        tokens: Math.ceil(pageView.length / 4),
        fingerprint: `fp${clicks}`,
        notes: [],
      }
    },
    tools(): AnyTool[] {
      return [
        defineTool({
          name: 'click',
          description: 'Click an element.',
          input: z.object({ ref: z.string() }),
          async execute(input) {
            browser.calls.push({ tool: 'click', input })
            if (input.ref !== 'b1')
              return { ok: false, text: `Element ${input.ref} is no longer on the page.` }
            clicks++
            return { ok: true, text: `Clicked button 'Add'.` }
          },
        }),
        defineTool({
          name: 'slow_task',
          description: 'Takes a long time.',
          input: z.object({ seconds: z.number() }),
          async execute(input, ctx) {
            browser.calls.push({ tool: 'slow_task', input })
            if (options.slowToolIgnoresAbort)
              await new Promise((resolve) => setTimeout(resolve, input.seconds * 1000))
            else await sleep(input.seconds * 1000, ctx.signal)
            return { ok: true, text: 'Slow task finished.' }
          },
        }),
        defineTool({
          name: 'go_back',
          description: 'Go back.',
          input: z.object({}),
          async execute() {
            browser.calls.push({ tool: 'go_back', input: {} })
            return { ok: true, text: 'Went back.' }
          },
        }),
        defineTool({
          name: 'execute_javascript',
          description: 'Run a script.',
          input: z.object({ script: z.string() }),
          requiresConfirmation: true,
          async execute(input) {
            browser.calls.push({ tool: 'execute_javascript', input })
            return { ok: true, text: 'Result: 42' }
          },
        }),
        defineTool({
          name: 'download_file',
          description: 'Download a file.',
          input: z.object({ name: z.string(), text: z.string() }),
          async execute(input) {
            browser.calls.push({ tool: 'download_file', input })
            const path = join(await mkdtemp(join(tmpdir(), 'sextant-fake-download-')), input.name)
            await writeFile(path, input.text)
            await options.keepDownload?.(input.name, path)
            return { ok: true, text: `Downloaded ${input.name}.` }
          },
        }),
      ]
    },
    async finish(signal) {
      signal.throwIfAborted()
      return { waitedMs: 0, completed: 0, pending: [] }
    },
    async close() {
      browser.closed++
    },
  }
  if (options.artifacts?.har) {
    const steps: string[] = []
    Object.assign(browser, {
      artifacts: {
        step: async (title: string) => {
          steps.push(title)
        },
        collect: async () => {
          const dir = await mkdtemp(join(tmpdir(), 'fake-artifacts-'))
          const path = join(dir, 'network.har')
          const text = JSON.stringify({ log: { entries: [], pages: steps.map((title) => ({ title })) } })
          await writeFile(path, text)
          const file = { kind: 'har' as const, name: 'network.har', path, bytes: Buffer.byteLength(text) }
          return { files: [file], dispose: async () => {} }
        },
      },
    })
  }
  return browser
}

/** The bytes of the fake page's picture: a JPEG's start and end markers around its click count. */
export function fakeJpeg(clicks: number): Uint8Array {
  return new Uint8Array([0xff, 0xd8, ...new TextEncoder().encode(`fake page, ${clicks} clicks`), 0xff, 0xd9])
}

/** A screenshot and a screencast of the fake page (a frame every 50 ms), and a person's input recorded as a call. */
function fakePictures(self: () => FakeBrowser): Pick<BrowserSession, 'pictures' | 'live' | 'takeover'> {
  return {
    pictures: {
      async screenshot(_options, signal) {
        signal.throwIfAborted()
        return { data: fakeJpeg(self().calls.length), mediaType: 'image/jpeg', width: 800, height: 600 }
      },
      elementBox: async () => undefined,
    },
    live: {
      async screencast(onFrame, _options, signal) {
        while (!signal.aborted) {
          onFrame({
            jpeg: Buffer.from(fakeJpeg(self().calls.length)).toString('base64'),
            width: 800,
            height: 600,
            origin: 'http://fake.test',
          })
          await sleep(50, signal).catch(() => {})
        }
      },
    },
    takeover: {
      async input(input, signal) {
        signal.throwIfAborted()
        self().calls.push({ tool: 'person_input', input })
      },
    },
  }
}
