import { afterAll, beforeAll, expect, test } from 'vitest'
import { createHandoverDesk } from '../../../src/agent/handover/handover-desk.ts'
import { openRunViewer, type RunViewer } from '../../../src/cli/run-viewer.ts'
import type { AgentEvent } from '../../../src/events/events.ts'
import { createLogger } from '../../../src/log.ts'
import { startViewer, type Viewer } from './support.ts'

// A step's card in the run viewer shows what the page reported since the step before (#45): its console
// errors and warnings, the exceptions it did not catch, its failed and refused requests, as text. The
// page writes those texts, so one of them is markup that must stay text.

const runId = 'run_pagelog1'
let local: RunViewer
let viewer: Viewer

const at = () => new Date().toISOString()
const hostile = '<img src=x onerror="document.title=\'owned\'">'

beforeAll(async () => {
  local = await openRunViewer(
    { id: runId, task: 'Save the note', model: 'fake/model', createdAt: at() },
    createHandoverDesk(),
    createLogger({ level: 'silent' }),
  )
  const events: AgentEvent[] = [
    { type: 'run_started', runId, seq: 0, at: at(), task: 'Save the note', model: 'fake/model', maxTurns: 5 },
    { type: 'step_started', runId, seq: 1, at: at(), step: 1, maxTurns: 5 },
    {
      type: 'observation',
      runId,
      seq: 2,
      at: at(),
      url: 'http://127.0.0.1:8080/notes',
      title: 'Notes',
      tabs: [],
      refs: 2,
      pageViewTokens: 40,
      notes: [],
      pageLog: {
        console: [
          { level: 'error', text: `could not save ${hostile}` },
          { level: 'warning', text: 'the save endpoint is deprecated' },
          { level: 'exception', text: "TypeError: Cannot read properties of undefined (reading 'x')" },
        ],
        network: [
          { method: 'POST', url: 'http://127.0.0.1:8080/api/save?…', status: 500, resourceType: 'fetch' },
          { method: 'GET', url: 'http://blocked.example/beacon', refused: 'not in allowedDomains' },
        ],
        omitted: 4,
      },
    },
  ]
  for (const event of events) local.push(event)
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await local?.close()
})

test("a step's card lists what the page reported, as text", async () => {
  const { page, problems } = await viewer.open()
  await page.goto(local.url)
  const reported = page.getByRole('region', { name: 'The page reported' })
  await reported.waitFor()
  expect(await reported.getByRole('listitem').allTextContents()).toEqual([
    `Console error: could not save ${hostile}`,
    'Console warning: the save endpoint is deprecated',
    "Uncaught exception: TypeError: Cannot read properties of undefined (reading 'x')",
    'POST http://127.0.0.1:8080/api/save?… → 500',
    'GET http://blocked.example/beacon → refused: not in allowedDomains',
    '… and 4 more',
  ])
  expect(await page.locator('#steps img').count()).toBe(0)
  expect(await page.title()).not.toBe('owned')
  expect(problems).toEqual([])
})
