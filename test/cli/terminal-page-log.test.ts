import { expect, test } from 'vitest'
import { TerminalView } from '../../src/cli/terminal/terminal-view.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import type { PageLog } from '../../src/events/page-log.ts'

// `sextant run`'s live view says under a step's page what the page reported since the step before (#45),
// in the one short line the model reads, and nothing when the page reported only warnings.

const observation = (pageLog?: PageLog): AgentEvent => ({
  type: 'observation',
  runId: 'run_terminal1',
  seq: 2,
  at: new Date().toISOString(),
  url: 'http://127.0.0.1:8080/notes',
  title: 'Notes',
  tabs: [],
  refs: 2,
  pageViewTokens: 40,
  notes: [],
  ...(pageLog ? { pageLog } : {}),
})

function rendered(event: AgentEvent): string[] {
  const lines: string[] = []
  new TerminalView((text) => lines.push(text), { tty: false, color: false }).render(event)
  return lines.join('').split('\n').filter(Boolean)
}

test("an observation with errors and failed requests prints the model's line under the page", () => {
  const lines = rendered(
    observation({
      console: [{ level: 'error', text: 'could not save the note' }],
      network: [{ method: 'POST', url: 'http://127.0.0.1:8080/api/save?…', status: 500 }],
      omitted: 0,
    }),
  )
  expect(lines).toEqual([
    '  http://127.0.0.1:8080/notes · "Notes" · 2 elements',
    '  Since the last step the page reported: console error "could not save the note"; POST http://127.0.0.1:8080/api/save?… → 500.',
  ])
})

test('warnings alone, or nothing reported, add no line', () => {
  const warned = observation({ console: [{ level: 'warning', text: 'deprecated' }], network: [], omitted: 0 })
  expect(rendered(warned)).toHaveLength(1)
  expect(rendered(observation())).toHaveLength(1)
})
