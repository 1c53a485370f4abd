import { afterAll, beforeAll, expect, test } from 'vitest'
import { createHandoverDesk } from '../../../src/agent/handover/handover-desk.ts'
import { openRunViewer, type RunViewer } from '../../../src/cli/run-viewer.ts'
import { createLogger } from '../../../src/log.ts'
import { until } from '../../support/until.ts'
import { startViewer, type Viewer } from './support.ts'

// The CLI's local viewer of its one run (src/cli/run-viewer.ts), opened in real Chromium at the URL the
// CLI prints: the token in its fragment lets the page read the run at once, and leaves the address bar.

const desk = createHandoverDesk()
let local: RunViewer
let viewer: Viewer

beforeAll(async () => {
  local = await openRunViewer(
    {
      id: 'run_cliviewer1',
      task: 'Sign in for me',
      model: 'fake/model',
      createdAt: new Date().toISOString(),
    },
    desk,
    createLogger({ level: 'silent' }),
  )
  local.push({
    type: 'run_started',
    runId: 'run_cliviewer1',
    seq: 0,
    at: new Date().toISOString(),
    task: 'Sign in for me',
    model: 'fake/model',
    maxTurns: 10,
  })
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await local?.close()
})

test('the printed URL opens the run page without asking for the token, and Take over reaches the run', async () => {
  const { page, problems } = await viewer.open()
  await page.goto(local.url)
  await page.locator('#run-task', { hasText: 'Sign in for me' }).waitFor()
  expect(await page.locator('#auth').isHidden()).toBe(true)
  // The token left the address bar (and the history) as soon as the page read it.
  expect(page.url()).toBe(local.url.slice(0, local.url.indexOf('#')))

  await page.waitForFunction(() => !(document.getElementById('take-over') as HTMLButtonElement).disabled)
  await page.getByRole('button', { name: 'Take over' }).click()
  await until(() => desk.requested)
  expect(problems).toEqual([])
})
