// How many tokens one step costs, per provider, as each really sends it: the fixed prefix (system
// prompt + the AgentOutput tool) and the whole prompt of step 1 and step 10 on the saved real-world
// pages. A scripted model drives a real run (real Chromium) 10 steps down each page; each captured
// model call is then sent through the real AI SDK provider packages (OpenAI Responses, an
// OpenAI-compatible Chat endpoint, Anthropic, Gemini) to a local listener, and the request body it
// receives is counted with o200k_base (gpt-tokenizer): tools as the JSON they are sent as (a local
// server's chat template prints them so), system and message text as text. A provider's own
// tokenizer differs by some percent; the comparison before/after and between providers holds.
// Run: node bench/prompt-size.bench.ts [page-name-filter...]   (or npm run bench -- prompt-size)
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { runAgent } from '../src/agent/loop.ts'
import { type BrowserPool, createBrowserPool } from '../src/browser/launch/launcher.ts'
import { type RecordedRequest, startFakeProvider } from '../test/support/models/fake-provider.ts'
import {
  prefixTokens as prefixOf,
  type RequestSize as Size,
  requestSize as sizeOf,
  promptTokens as wholeOf,
} from '../test/support/models/request-size.ts'
import { agentOutput, scriptedModel } from '../test/support/models/scripted-model.ts'
import { serveFolder } from '../test/support/page-server.ts'
import { pagesDir } from './saved-pages.ts'

const filters = process.argv.slice(2)
/** Ollama's default context (under 24 GiB of VRAM), and the room an answer needs in it. */
const smallContext = 4096
const answerRoom = 500
const laterStep = 10

/** The model's turns: scroll down a page each step, with a memory that grows like a real one; then done. */
function script() {
  return scriptedModel([
    ...Array.from({ length: laterStep }, (_, i) => ({
      output: agentOutput(
        { scroll: { direction: 'down' } },
        `Read ${i + 1} screens so far; noted the section headings and the figures in the second table.`,
        'Scroll on to the next part of the page.',
      ),
    })),
    { output: agentOutput({ done: { text: 'Read the page.', success: true } }) },
  ])
}

/** The model calls of a run down one page: what the AI SDK handed the model on steps 1 and 10. */
async function capturedCalls(url: string, pool: BrowserPool): Promise<LanguageModelV4CallOptions[]> {
  const model = script()
  for await (const _event of runAgent({
    task: 'Read this page from top to bottom and note its section headings.',
    startUrl: url,
    model,
    browser: pool.newSession,
    maxTurns: laterStep + 2,
    stuck: false,
    compaction: { thresholdTokens: 1_000_000 },
    // The saved pages' remote scripts, images and fonts cannot load here: refused at once, not waited for.
    allowedDomains: ['127.0.0.1'],
  })) {
    // Only the model calls matter.
  }
  return model.doStreamCalls
}

interface Provider {
  name: string
  pathPrefix: string
  model(baseUrl: string): LanguageModelV4
}

const providers: Provider[] = [
  {
    name: 'OpenAI Responses',
    pathPrefix: '/v1',
    model: (baseURL) => createOpenAI({ apiKey: 'bench', baseURL })('gpt-4.1-mini') as LanguageModelV4,
  },
  {
    name: 'OpenAI-compatible Chat',
    pathPrefix: '/v1',
    model: (baseURL) =>
      createOpenAI({ apiKey: 'bench', baseURL, name: 'compatible' }).chat('qwen3:8b') as LanguageModelV4,
  },
  {
    name: 'Anthropic',
    pathPrefix: '/v1',
    model: (baseURL) => createAnthropic({ apiKey: 'bench', baseURL })('claude-sonnet-4-5') as LanguageModelV4,
  },
  {
    name: 'Gemini',
    pathPrefix: '/v1beta',
    model: (baseURL) =>
      createGoogleGenerativeAI({ apiKey: 'bench', baseURL })('gemini-2.5-flash') as LanguageModelV4,
  },
]

/** The body one provider sends for one model call (the listener answers an empty stream). */
async function sentBody(
  provider: Provider,
  call: LanguageModelV4CallOptions,
): Promise<RecordedRequest['body']> {
  const listener = await startFakeProvider(provider.pathPrefix, () => [])
  try {
    const { stream } = await provider.model(listener.baseUrl).doStream(call)
    await stream.cancel().catch(() => {})
  } catch {
    // An empty answer may be refused by the provider's parser: the request was sent all the same.
  } finally {
    await listener.close()
  }
  const request = listener.requests[0]
  if (!request) throw new Error(`${provider.name}: no request reached the listener`)
  return request.body
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  const upper = sorted[middle] ?? Number.NaN
  return sorted.length % 2 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2
}

const pad = (value: string | number, width: number) => String(value).padStart(width)

async function main(): Promise<void> {
  const { readdir } = await import('node:fs/promises')
  const names = (await readdir(pagesDir))
    .filter((file) => file.endsWith('.html'))
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
    .sort()
  const server = await serveFolder(pagesDir)
  const pool = createBrowserPool()
  /** Per provider, per page: step 1's and step 10's sizes. */
  const sizes = new Map<string, { page: string; first: Size; later?: Size }[]>(
    providers.map((provider) => [provider.name, []]),
  )
  try {
    for (const page of names) {
      const calls = await capturedCalls(`${server.url}/${page}`, pool)
      const first = calls[0]
      if (!first) {
        console.log(`${page}: no model call (the run did not start)`)
        continue
      }
      const later = calls[laterStep - 1]
      for (const provider of providers) {
        const firstSize = sizeOf(await sentBody(provider, first))
        const laterSize = later ? sizeOf(await sentBody(provider, later)) : undefined
        sizes.get(provider.name)?.push({ page, first: firstSize, ...(laterSize ? { later: laterSize } : {}) })
      }
      const chat = sizes.get('OpenAI-compatible Chat')?.at(-1)
      console.log(
        `${page.padEnd(34)} chat step 1 ${pad(chat ? wholeOf(chat.first) : '-', 6)}  step ${laterStep} ${pad(chat?.later ? wholeOf(chat.later) : '-', 6)}`,
      )
    }
  } finally {
    await pool.close()
    await server.close()
  }

  console.log('')
  console.log(
    `tokens (o200k_base, gpt-tokenizer) per request as sent; ${names.length} saved pages; fits = step 1 ≤ ${smallContext - answerRoom} (${smallContext} context, ${answerRoom} left for the answer)`,
  )
  console.log(
    `${'provider'.padEnd(24)} ${pad('system', 7)} ${pad('tools', 6)} ${pad('prefix', 7)} ${pad('step 1 med', 11)} ${pad('max', 6)} ${pad(`step ${laterStep} med`, 12)} ${pad('max', 6)}  fits`,
  )
  for (const provider of providers) {
    const rows = sizes.get(provider.name) ?? []
    const first = rows.map((row) => row.first)
    const later = rows.flatMap((row) => (row.later ? [row.later] : []))
    const fits = first.filter((size) => wholeOf(size) <= smallContext - answerRoom).length
    const room = smallContext - median(first.map(wholeOf))
    console.log(
      `${provider.name.padEnd(24)} ${pad(median(first.map((s) => s.system)), 7)} ${pad(median(first.map((s) => s.tools)), 6)} ${pad(median(first.map(prefixOf)), 7)} ${pad(median(first.map(wholeOf)), 11)} ${pad(Math.max(...first.map(wholeOf)), 6)} ${pad(median(later.map(wholeOf)), 12)} ${pad(Math.max(...later.map(wholeOf)), 6)}  ${fits}/${first.length} (median room ${room})`,
    )
  }
  // Main at 5e128fa, before #43's shrink, by this bench on all 46 pages (the same for every provider within 2 tokens).
  console.log(
    `before (issue 43): system 1185, tools 2133, prefix 3318, step 1 median 4590 (max 5719), step ${laterStep} median 4885 (max 7202), fits 0/46`,
  )
}

await main()
