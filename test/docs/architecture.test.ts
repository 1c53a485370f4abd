import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'

// docs/architecture.md is for whoever carries the work on: a state or a folder it does not name
// fails here, so the page cannot drift from the code it explains.

const root = join(import.meta.dirname, '../..')
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')

/** The states `transition()` dispatches on: its switch is exhaustive (a `never` check), so this is all of them. */
function states(): string[] {
  const loop = readFileSync(join(root, 'src/agent/loop.ts'), 'utf8')
  const body = loop.slice(loop.indexOf('export async function transition'))
  return [...body.slice(0, body.indexOf('\n}\n')).matchAll(/case '([a-z_]+)':/g)].map((m) => m[1] ?? '')
}

function folders(): string[] {
  return readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name).slice(join(root, 'src').length + 1))
}

describe('docs/architecture.md', () => {
  const diagram = doc.slice(doc.indexOf('```mermaid'), doc.indexOf('```', doc.indexOf('```mermaid') + 3))

  test.each(states())('has %s in its state table and its diagram', (state) => {
    expect(doc).toContain(`| \`${state}\` |`)
    expect(diagram).toMatch(new RegExp(`\\b${state}\\b`))
  })

  test('names only states that exist', () => {
    const known = new Set(states())
    expect(known.size).toBeGreaterThan(10)
    for (const [, state] of doc.matchAll(/^\| `([a-z_]+)` \| /gm)) expect(known, state).toContain(state)
  })

  test.each(folders())('names the folder src/%s', (folder) => {
    const last = folder.split('/').at(-1)
    expect(doc.includes(`src/${folder}/`) || doc.includes(`\`${last}/\``), folder).toBe(true)
  })
})

// The house rules of issue 34, held here so a file or a folder cannot grow past them unnoticed: a
// file over 350 lines does more than one job (the in-page scan is one script injected whole, so it
// is exempt), a folder of more than 20 files wants rooms, and the loop stays a short dispatcher.
describe('sizes', () => {
  const lines = (path: string) => readFileSync(join(root, path), 'utf8').split('\n').length - 1

  test('no src/ file but the in-page scan is over 350 lines', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !/(^|\/)page-scan[^/]*\.ts$/.test(file),
    )
    const long = files
      .map((file) => `src/${file}: ${lines(`src/${file}`)}`)
      .filter((row) => Number(row.split(': ')[1]) > 350)
    expect(long).toEqual([])
  })

  test('no folder of src/ or test/ has more than 20 files directly in it', () => {
    const crowded = ['src', 'test'].flatMap((top) =>
      [
        top,
        ...readdirSync(join(root, top), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1)),
      ]
        .map((folder) => ({
          folder,
          files: readdirSync(join(root, folder), { withFileTypes: true }).filter((entry) => entry.isFile())
            .length,
        }))
        .filter(({ files }) => files > 20)
        .map(({ folder, files }) => `${folder}: ${files}`),
    )
    expect(crowded).toEqual([])
  })

  test('src/agent/loop.ts is under 150 lines', () => {
    expect(lines('src/agent/loop.ts')).toBeLessThan(150)
  })
})
