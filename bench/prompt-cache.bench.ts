// How much of each step's prompt a provider's prompt cache can serve: the share of step k's prompt
// (system prompt + user message, as sent) that is a byte-identical prefix of step k-1's prompt,
// over a 20-step scripted run in real Chromium, with and without a compaction in the middle.
// Run: node bench/prompt-cache.bench.ts  (or npm run bench -- prompt-cache)
import { join } from 'node:path'
import { MockLanguageModelV4 } from 'ai/test'
import { runAgent } from '../src/agent/loop.ts'
import type { CompactionOptions } from '../src/agent/run/run-options.ts'
import { createBrowserPool } from '../src/browser/launch/launcher.ts'
import { agentOutput, type ScriptedModel, scriptedModel } from '../test/support/models/scripted-model.ts'
import { serveFolder } from '../test/support/page-server.ts'

const steps = 20
const realWorld = join(import.meta.dirname, '../../shared/pages/real-world')
const fixtures = join(import.meta.dirname, '../test/fixtures')

/** The model's turns: scroll down a page each step, with a memory that grows like a real one; then done. */
function script(): ScriptedModel {
  return scriptedModel([
    ...Array.from({ length: steps - 1 }, (_, i) => ({
      output: agentOutput(
        { scroll: { direction: i % 6 === 5 ? 'up' : 'down' } },
        `Read ${i + 1} screens so far; noted the section headings and the figures in the second table.`,
        'Scroll on to the next part of the page.',
      ),
    })),
    { output: agentOutput({ done: { text: 'Read the whole page.', success: true } }) },
  ])
}

/** A summarizer for the compaction: answers the summary schema. */
const summarizer = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          task: 'Read the page.',
          progress: 'Scrolled through the first half.',
          keyData: 'Headings noted.',
          failedAttempts: 'None.',
          nextSteps: 'Read the rest.',
        }),
      },
    ],
    finishReason: { unified: 'stop', raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
    warnings: [],
  }),
})

/**
 * Each model call's input as the provider receives it, flattened to text in
 * order: the tool definitions (sent first, and cached with the rest of the
 * prefix), the system prompt, the user message.
 */
function sentPrompts(model: ScriptedModel, withTools = true): string[] {
  return model.doStreamCalls.map(
    (call) =>
      (withTools ? JSON.stringify(call.tools ?? []) : '') +
      call.prompt
        .map((message) =>
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => ('text' in part ? part.text : '')).join(''),
        )
        .join(''),
  )
}

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

interface Figures {
  shares: number[]
  compactions: number
  meanPromptTokens: number
}

async function measure(url: string, compaction: Partial<CompactionOptions> | undefined): Promise<Figures> {
  const pool = createBrowserPool()
  const model = script()
  let compactions = 0
  try {
    for await (const event of runAgent({
      task: 'Read this page from top to bottom and note its section headings.',
      startUrl: url,
      model,
      modelName: 'anthropic/claude-sonnet-4-5',
      browser: pool.newSession,
      maxTurns: steps + 2,
      stuck: false,
      ...(compaction ? { compaction } : {}),
    })) {
      if (event.type === 'compaction_end' && event.ok) compactions++
    }
  } finally {
    await pool.close()
  }
  const prompts = sentPrompts(model)
  const shares = prompts.map((prompt, k) =>
    k === 0 ? 0 : commonPrefix(prompts[k - 1] ?? '', prompt) / prompt.length,
  )
  const meanPromptTokens = prompts.reduce((sum, prompt) => sum + prompt.length / 4, 0) / prompts.length
  return { shares, compactions, meanPromptTokens }
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`

const pages = {
  'small app page (forms.html)': 'forms.html',
  'long article (wikipedia-2.html)': 'wikipedia-2.html',
}
const fixtureServer = await serveFolder(fixtures)
const realServer = await serveFolder(realWorld)
try {
  console.log(
    'share of step k’s input (tools, system, user message) that is a byte-identical prefix of step k−1’s',
  )
  console.log('page                              compaction  steps≥3 mean  steps≥3 min  step-by-step')
  for (const [label, file] of Object.entries(pages)) {
    const url = `${file === 'forms.html' ? fixtureServer.url : realServer.url}/${file}`
    // The threshold puts one compaction near the middle of the run.
    const variants: [string, Partial<CompactionOptions> | undefined][] = [
      ['off', { thresholdTokens: 1_000_000 }],
      ['on', { thresholdTokens: 0, keepRecentSteps: 4, maxFailures: 1, model: summarizer }],
    ]
    for (const [name, compaction] of variants) {
      const withThreshold =
        name === 'on' ? await thresholdForMidRun(url, compaction) : (compaction as Partial<CompactionOptions>)
      const figures = await measure(url, withThreshold)
      const later = figures.shares.slice(2)
      const mean = later.reduce((sum, share) => sum + share, 0) / later.length
      console.log(
        `${label.padEnd(34)}${`${name} (${figures.compactions})`.padEnd(12)}${percent(mean).padEnd(14)}${percent(Math.min(...later)).padEnd(13)}${figures.shares
          .slice(1)
          .map((share) => Math.round(share * 100))
          .join(' ')}   (mean prompt ≈ ${Math.round(figures.meanPromptTokens)} tokens)`,
      )
    }
  }
} finally {
  await Promise.all([fixtureServer.close(), realServer.close()])
}

/** A threshold between the estimated prompt sizes of steps 9 and 10, measured on a run without compaction. */
async function thresholdForMidRun(
  url: string,
  compaction: Partial<CompactionOptions> | undefined,
): Promise<Partial<CompactionOptions>> {
  const pool = createBrowserPool()
  const model = script()
  try {
    for await (const _event of runAgent({
      task: 'Read this page from top to bottom and note its section headings.',
      startUrl: url,
      model,
      browser: pool.newSession,
      maxTurns: 12,
      stuck: false,
      compaction: { thresholdTokens: 1_000_000 },
    })) {
      // Only the prompts matter.
    }
  } finally {
    await pool.close()
  }
  // The threshold is compared with the estimate of system prompt and user message (tools not counted).
  const prompts = sentPrompts(model, false)
  const size = (k: number) => Math.ceil((prompts[k] ?? '').length / 4)
  return { ...compaction, thresholdTokens: Math.round((size(8) + size(9)) / 2) }
}
