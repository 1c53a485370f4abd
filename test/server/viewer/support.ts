import type { Browser, BrowserContext, Page } from 'playwright-core'
import {
  agentOutput,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'

/**
 * A fake model that plays a script per task, so several runs can share one
 * endpoint: the script is chosen by the task's name in the prompt, and each
 * step can read the page view it was given (to click a ref it shows).
 */
export type Script = (step: number, view: string) => FakeTurn

export async function scriptedModel(scripts: Record<string, Script>): Promise<FakeOpenAI> {
  return startFakeOpenAI({
    fallback: (request: FakeRequest) => {
      const text = promptText(request)
      const name = Object.keys(scripts).find((key) => text.includes(`<task>\n${key}`))
      const step = Number(/<step>Step (\d+) of/.exec(text)?.[1] ?? 0)
      if (!name) return { status: 500, text: 'No script for this task.' }
      return scripts[name]!(step, text)
    },
  })
}

/** The ref of the line whose role and name are given, in the page view a step was shown. */
export function refIn(view: string, role: string, name: string): string {
  const match = new RegExp(`${role} "${name}"[^\\n]*?\\[ref=(\\w+)\\]`).exec(view)
  if (!match) throw new Error(`No ${role} "${name}" in the page view.`)
  return match[1]!
}

export const turn = {
  action: (action: Record<string, unknown>, extra: Partial<FakeTurn> = {}): FakeTurn => ({
    output: agentOutput(action),
    ...extra,
  }),
  done: doneTurn,
}

/** A Chromium that looks at the viewer, as a person would, and records what the page complains about. */
export interface Viewer {
  browser: Browser
  open(options?: { width?: number; height?: number }): Promise<{ page: Page; problems: string[] }>
  close(): Promise<void>
}

export async function startViewer(): Promise<Viewer> {
  const browser = await borrowBrowser()
  const contexts: BrowserContext[] = []
  return {
    browser,
    async open({ width = 1280, height = 900 } = {}) {
      const context = await browser.newContext({ viewport: { width, height } })
      contexts.push(context)
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text())
      })
      page.on('pageerror', (error) => problems.push(error.message))
      return { page, problems }
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {})
      await browser.close()
    },
  }
}
