import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { z } from 'zod'
import * as callSchemas from '../../src/events/call-schemas.ts'
import * as evalSchemas from '../../src/events/eval-events.ts'
import * as recordingSchemas from '../../src/recording/schema.ts'

// docs/recording.md and docs/eval.md show their schemas as zod, written for a reader (comments, a few
// names shortened). A field added to the code and not to the page would mislead every reader of the
// page, so each object the page shows is held here to the schema it names: the same fields, each
// optional exactly when the code's is.

const docsDir = join(import.meta.dirname, '../../docs')

interface DocObject {
  name: string
  /** Field name → whether the page shows it as optional. */
  fields: Map<string, boolean>
}

/** The `z.object({…})` / `z.strictObject({…})` declarations in a page's ```ts block that follows `marker`. */
function docObjects(page: string, marker: string): DocObject[] {
  const text = readFileSync(join(docsDir, page), 'utf8')
  const start = text.indexOf(marker)
  expect(start, `${page} still introduces its schema with "${marker}"`).toBeGreaterThan(-1)
  const block = text.slice(start).match(/```ts\n([\s\S]*?)```/)?.[1] ?? ''
  const objects: DocObject[] = []
  let current: DocObject | undefined
  let field: { name: string; text: string } | undefined
  const finish = () => {
    if (current && field) current.fields.set(field.name, /\.optional\(\),?$/.test(field.text.trim()))
    field = undefined
  }
  for (const line of block.split('\n')) {
    const opening = line.match(/^(?:export )?const (\w+) = z\.(?:strictObject|object)\(\{$/)
    if (opening?.[1]) {
      current = { name: opening[1], fields: new Map() }
      objects.push(current)
      continue
    }
    if (!current) continue
    if (/^\}\)/.test(line)) {
      finish()
      current = undefined
      continue
    }
    const key = line.match(/^ {2}(?:'([^']+)'|(\w+)): (.*)$/)
    const code = line.replace(/\s*\/\/.*$/, '')
    if (key) {
      finish()
      field = { name: key[1] ?? key[2] ?? '', text: (key[3] ?? '').replace(/\s*\/\/.*$/, '') }
    } else if (field && !/^\s*(\/\*\*|\*)/.test(line)) {
      field.text += code.trim()
    }
  }
  return objects
}

type Shape = Record<string, z.ZodType>

/** The schema a page's object stands for: the same name, with "Schema" added when the page drops it. */
function schemaOf(name: string, modules: object[]): { shape: Shape } | undefined {
  for (const candidate of [name, `${name}Schema`]) {
    for (const module of modules) {
      const value = (module as Record<string, unknown>)[candidate]
      if (value && typeof value === 'object' && 'shape' in value) return value as { shape: Shape }
    }
  }
  return undefined
}

function expectDocMatchesCode(page: string, marker: string, modules: object[]) {
  const objects = docObjects(page, marker)
  expect(objects.length, `${page} shows its schema's objects`).toBeGreaterThan(1)
  for (const object of objects) {
    const schema = schemaOf(object.name, modules)
    expect(schema, `${page}'s ${object.name} names a schema in the code`).toBeDefined()
    const shape = schema?.shape ?? {}
    const code = Object.fromEntries(
      Object.entries(shape).map(([name, field]) => [name, field.safeParse(undefined).success]),
    )
    expect(
      Object.fromEntries(object.fields),
      `${page}'s ${object.name}: fields and which are optional`,
    ).toEqual(code)
  }
}

describe('schemas the docs show', () => {
  test('docs/recording.md shows the recording schema as the code has it', () => {
    expectDocMatchesCode('recording.md', 'The schema (`src/recording/schema.ts`, zod):', [
      recordingSchemas,
      callSchemas,
    ])
  })

  test("docs/eval.md shows the JSON report's schema as the code has it", () => {
    expectDocMatchesCode('eval.md', '## The JSON report', [evalSchemas])
  })
})
