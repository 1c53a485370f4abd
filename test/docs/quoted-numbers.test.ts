import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { defaultHandoverTimeoutMs } from '../../src/agent/handover/handover-desk.ts'
import { defaultMaxTurns } from '../../src/agent/loop.ts'
import { defaultMaxDownloadBytes } from '../../src/browser/session/downloads.ts'
import { maxCandidates } from '../../src/browser/session/pictures/secret-search.ts'
import { replayWaitMs } from '../../src/browser/view/durable-targets.ts'
import { maxListeners } from '../../src/browser/view/listeners/listener-lookup.ts'
import { defaultTokenCap } from '../../src/browser/view/page-view.ts'
import { configEnvironment, loadConfig } from '../../src/config.ts'
import { defaultMaxEventBytes } from '../../src/events/event-cap.ts'
import { defaultHeartbeatMs } from '../../src/server/http/sse.ts'

// The waits and limits the docs quote are checked against the constants that set them: a changed
// default that the docs still quote the old way fails here.

const root = join(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const defaults = loadConfig({})
const seconds = (ms: number) => `${ms / 1000} s`

/** The text of a doc's section, from its heading to the next heading of the same or a higher level. */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const level = heading.split(' ')[0] ?? '#'
  const rest = doc.slice(start + heading.length + 2)
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `))
  return end === -1 ? rest : rest.slice(0, end)
}

describe('numbers the docs quote', () => {
  test.each([
    ['docs/recording.md', `must hold (checked for up to ${seconds(replayWaitMs)}`],
    ['docs/recording.md', `An element not there yet is waited for up to ${seconds(replayWaitMs)}.`],
    ['docs/api.md', `\`SEXTANT_MAX_TURNS\` (${defaultMaxTurns})`],
    ['docs/api.md', `A \`: ping\` comment every ${seconds(defaultHeartbeatMs)} keeps proxies`],
    ['docs/api.md', `\`SEXTANT_HEARTBEAT_MS\` (${seconds(defaults.heartbeatMs)})`],
    ['docs/api.md', `\`SEXTANT_HANDOVER_TIMEOUT_MS\` (${defaults.handoverTimeoutMs / 60_000} min)`],
    ['docs/deploy.md', `\`SEXTANT_LEASE_MS\` (${seconds(defaults.leaseMs)})`],
    ['docs/deploy.md', `\`SEXTANT_ENDPOINT_COOLDOWN_MS\` (${seconds(defaults.endpointCooldownMs)})`],
    ['docs/events.md', `\`maxEventBytes\` (${defaultMaxEventBytes / 1024} KB)`],
    ['docs/events.md', `\`maxDownloadBytes\` (${defaultMaxDownloadBytes / 1024 ** 2} MB)`],
    ['docs/events.md', `\`SEXTANT_MAX_TITLE_CHARS\` (${defaults.maxTitleChars} characters)`],
    ['docs/page-view.md', `(\`pageViewTokenCap\`, default ${defaultTokenCap})`],
    ['README.md', `"maxTurns":${defaultMaxTurns},`],
    ['docs/security.md', `a frame with more than ${maxCandidates.toLocaleString('en-US')} texts`],
    ['docs/page-view.md', `above ${maxListeners.toLocaleString('en-US')} (\`maxListeners\``],
    ['docs/security.md', `above ${maxListeners.toLocaleString('en-US')} it asks nothing more`],
  ])('%s quotes %s', (doc, text) => {
    expect(read(doc)).toContain(text)
  })

  test("the library's handover timeout is the server's default", () => {
    expect(defaultHandoverTimeoutMs).toBe(defaults.handoverTimeoutMs)
  })

  test("the replay section quotes no wait but the replay's own", () => {
    const replay = section(read('docs/recording.md'), '## Replay')
    const waits = [...replay.matchAll(/up to (\d+(?:\.\d+)?) s\b/g)].map((match) => Number(match[1]) * 1000)
    expect(waits.length).toBeGreaterThan(1)
    expect(new Set(waits)).toEqual(new Set([replayWaitMs]))
    // SEXTANT_REPLAY_WAIT_MS has no default of its own in config.ts: unset, a replay waits the above.
    const row = read('README.md')
      .split('\n')
      .find((line) => line.startsWith('| `SEXTANT_REPLAY_WAIT_MS` '))
    expect(row?.split('|')[3]?.trim()).toMatch(new RegExp(`^\`${replayWaitMs}\` `))
  })

  test("the README's configuration table gives each setting's real default", () => {
    const checked: string[] = []
    for (const [key, name] of Object.entries(configEnvironment)) {
      const value = (defaults as Record<string, unknown>)[key]
      if (typeof value !== 'number' && typeof value !== 'boolean') continue
      const line = read('README.md')
        .split('\n')
        .find((candidate) => candidate.startsWith(`| \`${name}\` `))
      const cell = line?.split('|')[3]?.trim() ?? ''
      // A switch may be written any way config.ts reads it: `false`, `0` or `off`.
      const spellings =
        value === true ? ['true', '1', 'on'] : value === false ? ['false', '0', 'off'] : [value]
      expect(cell, name).toMatch(new RegExp(`^\`(${spellings.join('|')})\`( |$)`))
      checked.push(name)
    }
    expect(checked.length).toBeGreaterThan(10)
  })

  test("the CLI's defaults are the library's, so one number in the docs holds for both", () => {
    expect(defaults.maxTurns).toBe(defaultMaxTurns)
    expect(defaults.maxEventBytes).toBe(defaultMaxEventBytes)
    expect(defaults.maxDownloadBytes).toBe(defaultMaxDownloadBytes)
  })
})
