import { expect, test } from 'vitest'
import type { RunProfiles } from '../../src/agent/run/profile-save.ts'
import type { RunOptions, RunSummary } from '../../src/agent/run/run-options.ts'
import { runEval } from '../../src/eval/run-eval.ts'
import { parseSuite } from '../../src/eval/suite.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import { scriptedModel } from '../support/models/scripted-model.ts'

const suite = parseSuite(
  [
    'defaults: { profile: shop }',
    'tasks:',
    '  - id: inherits',
    '    task: t',
    '    startUrl: http://a.test/',
    '    check: { resultIncludes: x }',
    '  - id: own',
    '    task: t',
    '    startUrl: http://a.test/',
    '    profile: admin',
    '    profileSave: never',
    '    check: { resultIncludes: x }',
  ].join('\n'),
)

test("an eval task's runs take its profile (or the suite default's) and the eval's profile store", async () => {
  const seen: Pick<RunOptions, 'profile' | 'profileSave' | 'profiles'>[] = []
  const profiles: RunProfiles = { load: async () => undefined, save: async () => {} }
  // Only the agent is replaced: the test is what the eval asks of it. It ends before its first event.
  async function* runAgent(options: RunOptions): AsyncGenerator<AgentEvent, RunSummary> {
    seen.push({ profile: options.profile, profileSave: options.profileSave, profiles: options.profiles })
    yield* []
    throw new Error('no run in this test')
  }
  const events = runEval({
    suite,
    models: [{ name: 'm/m', model: scriptedModel([]) }],
    browser: async () => {
      throw new Error('no browser in this test')
    },
    runAgent,
    profiles,
  })
  for await (const _event of events) {
    // Drained: each task's run is asked for once.
  }
  expect(seen).toEqual([
    { profile: 'shop', profileSave: 'success', profiles },
    { profile: 'admin', profileSave: 'never', profiles },
  ])
})
