// The step bench's floors: the scenario's actions in a bare Playwright loop,
// with nothing of Sextant's around them.
import type { Browser, Page } from 'playwright-core'
import type { Scenario } from './step-scenarios.ts'

/**
 * The same actions in a bare Playwright loop, each followed by an AI snapshot.
 * With `awaitEffect`, the loop first waits for the text the scenario expects
 * after the step (what the action set off), which the plain loop does not.
 */
export async function runBare(
  browser: Browser,
  origin: string,
  scenario: Scenario,
  awaitEffect: boolean,
): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1'
      ? route.fallback()
      : route.abort('blockedbyclient'),
  )
  const page = await context.newPage()
  await page.goto(`${origin}${scenario.path}`, { waitUntil: 'load' })
  await page.ariaSnapshot({ mode: 'ai' })
  const steps: number[] = []
  let current: Page = page
  for (let i = 0; i < scenario.steps.length; i++) {
    const started = performance.now()
    const opened = await scenario.bare(current, i)
    if (opened) current = opened
    else if (current !== page && i % 2 === 1) {
      await current.close()
      current = page
    }
    const effect = awaitEffect ? scenario.expect?.(i) : undefined
    if (effect) await current.getByText(effect).first().waitFor({ timeout: 10_000 })
    await current.ariaSnapshot({ mode: 'ai' })
    steps.push(performance.now() - started)
  }
  await context.close()
  return steps
}
