import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { type PageServer as StaticServer, serveFolder } from '../../support/page-server.ts'
import { Driver, testPool } from '../helpers/harness.ts'

/**
 * Real third-party apps, driven only as the agent drives them: through the
 * page view (refs found by reading its text) and the action tools.
 */

const examples = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples')

let pool: BrowserPool
let server: StaticServer

beforeAll(async () => {
  server = await serveFolder(examples)
  pool = testPool()
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
})

/** The ref of the checkbox on the same todo item as `text`: the nearest checkbox line above it. */
function checkboxOf(view: string, text: string): { ref: string; line: string } {
  const lines = view.split('\n')
  const at = lines.findIndex((line) => line.endsWith(`: ${text}`) || line.includes(`"${text}"`))
  if (at < 0) throw new Error(`No todo ${text} in the view:\n${view}`)
  for (let i = at; i >= 0; i--) {
    const match = /[-*] checkbox .*\[ref=(\w+)\]/.exec(lines[i]!)
    if (match) return { ref: match[1]!, line: lines[i]! }
  }
  throw new Error(`No checkbox above ${text}:\n${view}`)
}

async function run(driver: Driver, tool: string, input: Record<string, unknown>): Promise<void> {
  const result = await driver.act(tool, input)
  expect(result.ok, `${tool} ${JSON.stringify(input)}: ${result.text}`).toBe(true)
}

async function appState(driver: Driver): Promise<{ items: [string, boolean][]; storage: string }> {
  const result = await driver.act('execute_javascript', {
    script: `({
      items: [...document.querySelectorAll('#todo-list > li, .todo-list > li')].map((li) => [li.querySelector('label').textContent.trim(), li.classList.contains('completed')]),
      storage: JSON.stringify(Object.assign({}, localStorage)),
    })`,
  })
  expect(result.ok, result.text).toBe(true)
  return JSON.parse(result.text.replace(/^Result: /, ''))
}

describe.each(['vanillajs', 'react', 'backbone', 'vue'])('TodoMVC %s', (app) => {
  test('add three todos, complete one, filter Active, clear completed', async () => {
    const driver = await Driver.open(pool, { startUrl: `${server.url}/${app}/index.html` })
    await driver.observe()
    const input = driver.ref('textbox', 'What needs to be done?')
    for (const todo of ['Buy milk', 'Walk dog', 'Write tests']) {
      await run(driver, 'type', { ref: input, text: todo, submit: true })
    }
    await driver.observe()
    for (const todo of ['Buy milk', 'Walk dog', 'Write tests']) expect(driver.view).toContain(todo)

    const walk = checkboxOf(driver.view, 'Walk dog')
    expect(walk.line).not.toContain('[checked]')
    await run(driver, 'click', { ref: walk.ref })
    await driver.observe()
    expect(checkboxOf(driver.view, 'Walk dog').line).toContain('[checked]')
    expect(checkboxOf(driver.view, 'Buy milk').line).not.toContain('[checked]')

    await run(driver, 'click', { ref: driver.ref('link', 'Active') })
    await driver.observe()
    expect(driver.last!.url).toMatch(/#\/active$/)
    expect(driver.view).toContain('Buy milk')
    expect(driver.view).toContain('Write tests')
    expect(driver.view).not.toContain('Walk dog')

    await run(driver, 'click', { ref: driver.ref('button', /^Clear completed/) })
    await driver.observe()
    await run(driver, 'click', { ref: driver.ref('link', 'All') })
    await driver.observe()
    expect(driver.view).not.toContain('Walk dog')
    expect(driver.view).toContain('Buy milk')

    const state = await appState(driver)
    expect(state.items).toEqual([
      ['Buy milk', false],
      ['Write tests', false],
    ])
    expect(state.storage).toContain('Buy milk')
    expect(state.storage).toContain('Write tests')
    expect(state.storage).not.toContain('Walk dog')
    await driver.close()
  })
})
