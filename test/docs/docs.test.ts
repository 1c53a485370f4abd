import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { configEnvironment } from '../../src/config.ts'
import { eventSchemas, eventTypes } from '../../src/events/events.ts'
import { silentLogger } from '../../src/log.ts'
import { createApp } from '../../src/server/app.ts'
import { apiErrorCodes } from '../../src/server/http/api-errors.ts'
import { RunStatusSchema } from '../../src/server/http/schemas.ts'
import { quietManager } from '../server/support.ts'

// The docs are checked against the code they describe: a new event, field, route, error code or
// setting that the docs do not mention fails here.

const root = join(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const eventsDoc = read('docs/events.md')
const apiDoc = read('docs/api.md')
const readme = read('README.md')

/** The table row (one line) whose first cell is `name` in backticks. */
function row(doc: string, name: string): string | undefined {
  return doc.split('\n').find((line) => line.startsWith(`| \`${name}\` `))
}

/** The values an event field can take, when the schema fixes them. */
function enumValues(schema: z.ZodType): readonly string[] {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema
  return inner instanceof z.ZodEnum ? (inner.options as string[]) : []
}

/** Every `.ts` file under a folder of src/. */
function sources(folder: string): string[] {
  return readdirSync(join(root, 'src', folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => read(join('src', folder, file)))
}

describe('docs/events.md', () => {
  const common = ['type', 'runId', 'seq', 'at', 'parentRunId', 'childIndex', 'depth']

  test('documents the common fields', () => {
    for (const field of common) expect(row(eventsDoc, field), field).toBeDefined()
  })

  test.each(eventTypes)('documents %s with each of its fields and their fixed values', (type) => {
    const line = row(eventsDoc, type)
    expect(line, `no table row for ${type}`).toBeDefined()
    for (const [field, schema] of Object.entries(eventSchemas[type].shape)) {
      if (common.includes(field)) continue
      // `startUrl?` marks an optional field, `tabs[]` a list.
      expect(line, `${type}.${field}`).toMatch(new RegExp(`\`${field}(\\?|\\[\\])?\``))
      for (const value of enumValues(schema as z.ZodType)) {
        expect(eventsDoc, `${type}.${field} value ${value}`).toContain(`\`${value}\``)
      }
    }
  })

  test('lists every warning code the agent emits', () => {
    const codes = new Set<string>()
    for (const text of sources('agent')) {
      for (const match of text.matchAll(/type: 'warning',\s*code:\s*([^,\n]+)/g)) {
        for (const code of match[1]?.matchAll(/'([a-z_]+)'/g) ?? []) codes.add(code[1] ?? '')
      }
    }
    expect(codes.size).toBeGreaterThan(3)
    for (const code of codes) expect(row(eventsDoc, code), `warning code ${code}`).toBeDefined()
  })
})

describe('docs/api.md', () => {
  const manager = quietManager()
  const app = createApp({ manager, log: silentLogger(), version: '0.0.0' })

  test('lists every route the app answers', () => {
    const routes = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path === '/' ? '/' : route.path.replace(/\/$/, '')}`)
    expect(routes.length).toBeGreaterThan(5)
    for (const route of new Set(routes)) expect(apiDoc, route).toContain(`| \`${route}\``)
  })

  test('lists every error code with its status', () => {
    for (const code of apiErrorCodes) expect(apiDoc, code).toMatch(new RegExp(`\\| \\d{3} +\\| \`${code}\``))
  })
})

describe("README's configuration table", () => {
  test('has a row for every environment variable config.ts reads', () => {
    for (const name of Object.values(configEnvironment)) expect(row(readme, name), name).toBeDefined()
  })

  test('no file but config.ts reads a Sextant or Playwright variable, so the table above is the whole list', () => {
    const readers = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'config.ts')
      .filter((file) =>
        /env\.(?:SEXTANT|PLAYWRIGHT)_|env\[['"](?:SEXTANT|PLAYWRIGHT)_/.test(read(join('src', file))),
      )
    expect(readers).toEqual([])
  })
})

describe('compose.yaml', () => {
  test('has two Sextant servers on one PostgreSQL and two browser servers, set only with real settings', () => {
    const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string>; image?: string }>
    }
    expect(Object.keys(compose.services).sort()).toEqual([
      'browser-1',
      'browser-2',
      'postgres',
      'sextant-1',
      'sextant-2',
    ])
    const known = new Set<string>(Object.values(configEnvironment))
    for (const name of ['sextant-1', 'sextant-2']) {
      const environment = compose.services[name]?.environment ?? {}
      for (const key of Object.keys(environment)) expect(known.has(key), `${name}: ${key}`).toBe(true)
      expect(environment.SEXTANT_DB).toMatch(/^postgres:\/\/.*@postgres:5432\//)
      expect(environment.SEXTANT_BROWSER_WS?.split(',')).toEqual([
        'ws://browser-1:3000/',
        'ws://browser-2:3000/',
      ])
    }
    // The browser servers speak the protocol of the playwright-core this package uses.
    const pkg = JSON.parse(read('node_modules/playwright-core/package.json')) as { version: string }
    expect(compose.services['browser-1']?.image).toContain(`v${pkg.version}-`)
  })
})

/** GitHub's anchor for each heading of a markdown page (outside code blocks). */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>()
  const text = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '')
  for (const [, heading = ''] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-')
    let unique = slug
    for (let n = 1; found.has(unique); n++) unique = `${slug}-${n}`
    found.add(unique)
  }
  return found
}

describe('links between the docs', () => {
  test('every relative link in README.md and docs/ names a file inside the repository, and an anchor it has', () => {
    const pages = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => join('docs', name)),
    ]
    const broken: string[] = []
    for (const page of pages) {
      for (const [, target = ''] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue
        const [file = '', anchor] = target.split('#')
        const path = file === '' ? page : join(dirname(page), file)
        // The repository stands alone: a link that leaves it works only on the machine it was written on.
        if (relative(root, join(root, path)).startsWith('..')) broken.push(`${page} → ${target} (outside)`)
        else if (!existsSync(join(root, path))) broken.push(`${page} → ${target}`)
        else if (anchor !== undefined && path.endsWith('.md') && !anchors(read(path)).has(anchor))
          broken.push(`${page} → ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })
})

describe('README.md and docs/api.md name what the code has', () => {
  test('every state of the run (one file each in src/agent/states/) is in "How a run works"', () => {
    const how = readme.slice(readme.indexOf('## How a run works'), readme.indexOf('## Reference'))
    const states = readdirSync(join(root, 'src/agent/states')).map((file) =>
      file.replace(/\.ts$/, '').replace(/-/g, '_'),
    )
    expect(states.length).toBeGreaterThan(6)
    for (const state of states) expect(how, state).toMatch(new RegExp(`\\b${state}\\b`))
  })

  test('every run status is in the run resource', () => {
    for (const status of RunStatusSchema.options) expect(apiDoc, status).toContain(`\`${status}\``)
  })
})
