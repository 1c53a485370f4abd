import { afterAll, beforeAll, expect, test } from 'vitest'
import { createBrowserPool } from '../../src/browser/launch/launcher.ts'
import { runEval } from '../../src/eval/run-eval.ts'
import { SuiteSchema } from '../../src/eval/suite.ts'
import type { EvalReport } from '../../src/events/eval-events.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { sharedLaunch } from '../support/suite/shared-browser.ts'

// An eval task with an output schema: its data is checked with dataMatches and shown in the report.

let server: PageServer
const pool = createBrowserPool({ executablePath: '/usr/bin/chromium' }, sharedLaunch)
beforeAll(async () => {
  server = await startPageServer({
    pages: { '/': '<!doctype html><title>Lamp</title><p>The lamp costs 12.50 EUR.</p>' },
  })
})
afterAll(async () => {
  await pool.close()
  await server?.close()
})

test('dataMatches checks the data by path, equal or /regex/; the report shows the data', async () => {
  const output = {
    type: 'object',
    properties: { price: { type: 'number' }, currency: { type: 'string' } },
    required: ['price', 'currency'],
  }
  const check = { dataMatches: { price: 12.5, currency: '/^eur$/i' } }
  const suite = SuiteSchema.parse({
    tasks: [
      { id: 'right', task: 'The price of the lamp', startUrl: `${server.url}/`, output, check },
      { id: 'wrong', task: 'The price of the lamp, again', startUrl: `${server.url}/`, output, check },
    ],
  })
  const done = (data: unknown) => ({
    output: agentOutput({ done: { text: 'Read it.', success: true, data } }),
  })
  const model = scriptedModel([done({ price: 12.5, currency: 'EUR' }), done({ price: 10, currency: 'USD' })])
  const run = runEval({ suite, models: [{ name: 'scripted/model', model }], browser: pool.newSession })
  let next = await run.next()
  while (!next.done) next = await run.next()
  const report: EvalReport = next.value
  const [right, wrong] = report.tasks.map((task) => task.runs[0])
  expect(right).toMatchObject({ passed: true, data: { price: 12.5, currency: 'EUR' }, failedChecks: [] })
  expect(wrong).toMatchObject({ passed: false, data: { price: 10, currency: 'USD' } })
  expect(wrong?.failedChecks).toEqual([
    'dataMatches: price is 10, not 12.5',
    'dataMatches: currency is "USD", which does not match /^eur$/i',
  ])
})
