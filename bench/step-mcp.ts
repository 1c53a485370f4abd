// The step bench's Playwright MCP column: the same scenario driven through
// @playwright/mcp's tools over stdio, with the official MCP client, on the
// same Chromium. Each tool call answers with the page's snapshot (0.0.83 writes
// it to a file and names the file), so one call and reading that file is one
// step.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { findChromium } from '../src/browser/launch/find-chromium.ts'
import { countTokens } from '../src/util/tokens.ts'
import type { Scenario } from './step-scenarios.ts'

const cli = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js')

/** Sextant's action, as the MCP tool call that does the same. */
function toolCall(action: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  const [name, input] = Object.entries(action)[0] as [string, Record<string, unknown>]
  const element = 'the element'
  switch (name) {
    case 'type':
      return {
        name: 'browser_type',
        arguments: { element, target: input.ref, text: input.text, submit: !!input.submit },
      }
    case 'click':
      return { name: 'browser_click', arguments: { element, target: input.ref } }
    case 'select_option':
      return {
        name: 'browser_select_option',
        arguments: { element, target: input.ref, values: input.options },
      }
    case 'scroll':
      return {
        name: 'browser_press_key',
        arguments: { key: input.direction === 'up' ? 'PageUp' : 'PageDown' },
      }
    case 'close_tab':
      // The popup is the second tab; closing it leaves the opener.
      return { name: 'browser_tabs', arguments: { action: 'close', index: 1 } }
    default:
      throw new Error(`no MCP tool for ${name}`)
  }
}

/** The answer's text, with the snapshot it names read from its file. */
async function textOf(result: Awaited<ReturnType<Client['callTool']>>): Promise<string> {
  const content = result.content as { type: string; text?: string }[]
  const text = content.map((part) => part.text ?? '').join('\n')
  if (result.isError) throw new Error(`MCP tool failed: ${text.replace(/\s+/g, ' ').slice(0, 300)}`)
  const file = /\[Snapshot\]\(([^)]+)\)/.exec(text)?.[1]
  return file ? `${text}\n${await readFile(file, 'utf8')}` : text
}

/** Per-step times of the scenario through Playwright MCP, how many steps' answers lacked what was expected, and each answer's tokens. */
export async function runMcp(
  origin: string,
  scenario: Scenario,
): Promise<{ steps: number[]; missed: number; tokens: number[] }> {
  const chromium = findChromium()
  const outputDir = await mkdtemp(join(tmpdir(), 'sextant-step-mcp-'))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      cli,
      '--headless',
      '--isolated',
      '--no-sandbox',
      '--viewport-size',
      '1280x800',
      '--allowed-origins',
      origin,
      '--output-dir',
      outputDir,
      '--file-paths',
      'absolute',
      ...(chromium ? ['--executable-path', chromium] : []),
    ],
    stderr: 'ignore',
  })
  const client = new Client({ name: 'sextant-step-bench', version: '0' })
  await client.connect(transport)
  try {
    let view = await textOf(
      await client.callTool({ name: 'browser_navigate', arguments: { url: `${origin}${scenario.path}` } }),
    )
    const steps: number[] = []
    const tokens: number[] = []
    let missed = 0
    for (let i = 0; i < scenario.steps.length; i++) {
      const action = scenario.steps[i]?.(view, i)
      if (!action) break
      const started = performance.now()
      view = await textOf(await client.callTool(toolCall(action)))
      // An answer without the page's snapshot (closing a tab) is followed by one, as a client would ask.
      if (!/\[ref=/.test(view))
        view = await textOf(await client.callTool({ name: 'browser_snapshot', arguments: {} }))
      steps.push(performance.now() - started)
      // What the client's model reads of the page after the step: the answer with its snapshot.
      tokens.push(countTokens(view))
      const wanted = scenario.expect?.(i)
      if (wanted && !view.includes(wanted)) missed++
    }
    return { steps, missed, tokens }
  } finally {
    await client.close()
    await rm(outputDir, { recursive: true, force: true })
  }
}
