import { trace } from '@opentelemetry/api'
import { expect, test } from 'vitest'
import { createHandoverDesk } from '../../../src/agent/handover/handover-desk.ts'
import type { RunOptions } from '../../../src/agent/run/run-options.ts'
import { createStuckDetector } from '../../../src/agent/stuck/stuck-monitor.ts'
import { childInheritance, childRunOptions } from '../../../src/agent/sub-agents/child-options.ts'
import type { BrowserSessionFactory } from '../../../src/browser/browser-session.ts'
import { createLogger } from '../../../src/log.ts'
import { loadPriceTable } from '../../../src/model/prices.ts'
import type { Recording } from '../../../src/recording/schema.ts'
import { folderArtifacts, folderDownloads } from '../../../src/util/run-downloads.ts'
import { scriptedModel } from '../../support/models/scripted-model.ts'

// A child run is built from its parent's options. `Required<RunOptions>` makes this parent name
// every option: a new one fails typecheck here until it is given a value, and the test below
// until childInheritance decides whether children inherit it.

const factory: BrowserSessionFactory = async () => {
  throw new Error('no browser in this test')
}
const parent: Required<RunOptions> = {
  task: 'Compare the shops',
  model: scriptedModel([]),
  replay: { version: 1, task: 'Compare the shops', steps: [] } as unknown as Recording,
  replayWaitMs: 500,
  variables: { shop: 'A' },
  output: { type: 'object' },
  modelName: 'custom/model',
  runId: 'run_parent',
  startUrl: 'https://parent.test/',
  maxTurns: 30,
  maxSessionTokens: 90_000,
  maxCostUsd: 5,
  maxDurationMs: 600_000,
  allowedDomains: ['parent.test'],
  blockPrivateNetworks: true,
  proxy: { server: 'http://proxy.test:3128', username: 'u', password: 'p' },
  browserContext: { device: 'Pixel 7', locale: 'de-DE' },
  webhook: { url: 'https://hooks.parent.test/done', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0' },
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracer: trace.getTracer('sextant'),
  secrets: { password: 'hunter2' },
  profile: 'shop-login',
  profileSave: 'always',
  profiles: { load: async () => undefined, save: async () => {} },
  maxEventBytes: 10_000,
  maxDownloadBytes: 20_000,
  downloads: folderDownloads('/tmp/runs'),
  artifacts: { trace: true, har: true },
  artifactStore: folderArtifacts('/tmp/runs'),
  maxArtifactBytes: 1_000_000,
  browser: factory,
  tools: { remove: ['wait'], add: [] },
  policy: [{ tool: 'navigate', decision: 'confirm' }],
  confirm: async () => true,
  confirmationTimeoutMs: 5_000,
  askUser: async () => 'yes',
  handover: createHandoverDesk(),
  onBrowser: () => {},
  signal: new AbortController().signal,
  retry: { maxRetries: 1 },
  compaction: { thresholdTokens: 1_000 },
  stuck: () => createStuckDetector({ maxStuckSteps: 2 }),
  maxInvalidOutputs: 7,
  abortDeadlineMs: 1_500,
  screenshots: { dir: '/tmp/runs', quality: 50 },
  vision: { labels: true },
  subAgents: { max: 2, maxDepth: 3, depth: 1 },
  instructions: 'Be brief.',
  prices: loadPriceTable(),
  log: createLogger({ level: 'silent' }),
  now: () => 42,
}

const spec = {
  index: 0,
  task: 'Read shop A',
  startUrl: 'https://a.test/',
  maxTurns: 5,
  maxSessionTokens: 900,
}

test('every run option is decided: a child inherits it or has its own', () => {
  expect(Object.keys(childInheritance).sort()).toEqual(Object.keys(parent).sort())
})

test("a child carries every inherited option of its parent's, unchanged", () => {
  const child = childRunOptions(parent, spec, new AbortController().signal)
  for (const key of Object.keys(parent) as (keyof RunOptions)[]) {
    if (childInheritance[key] === 'inherit') expect({ [key]: child[key] }).toEqual({ [key]: parent[key] })
  }
  expect(child.prices).toBe(parent.prices)
  expect(child.screenshots).toBe(parent.screenshots)
  expect(child.vision).toBe(parent.vision)
})

test('a child has its own task, start, budget, signal and depth, and no id, replay, variables, askUser or handover desk', () => {
  const signal = new AbortController().signal
  const child = childRunOptions(parent, spec, signal)
  const overridden = Object.fromEntries(
    Object.entries(child).filter(([key]) => childInheritance[key as keyof RunOptions] === 'override'),
  )
  expect(overridden).toEqual({
    task: 'Read shop A',
    startUrl: 'https://a.test/',
    maxTurns: 5,
    maxSessionTokens: 900,
    browser: factory,
    signal,
    subAgents: { max: 2, maxDepth: 3, depth: 2 },
  })
  expect(overridden.signal).toBe(signal)
})

test('an option the parent leaves out is left out of the child too', () => {
  const child = childRunOptions({ task: 'bare' }, { index: 0, task: 'child', maxTurns: 3 }, parent.signal)
  expect(Object.keys(child).sort()).toEqual(['maxTurns', 'signal', 'task'])
})
