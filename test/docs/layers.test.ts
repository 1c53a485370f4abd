import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, test } from 'vitest'

// DESIGN's layers, bottom first: a module may import its own layer's and lower layers' modules,
// type imports included (a type import still couples the layers). Within a layer, folders may
// import each other only without a cycle. A new folder must be placed here before it can be used.
const layers: string[][] = [
  ['util', 'redact', 'tool', 'config', 'config-values', 'log', 'events', 'secrets'],
  ['store', 'recording', 'model', 'browser', 'webhooks', 'telemetry'],
  ['agent'],
  ['eval'],
  ['mcp'],
  ['server'],
  ['cli'],
  ['index'],
]

// Folders that know nothing of each other, though one sits above the other: the agent drives a browser
// and a model but never touches the store (its surfaces hand it what to keep), and the browser knows
// nothing of language models. What both need lives lower down, where both may import it.
const apart: [string, string][] = [
  ['agent', 'store'],
  ['browser', 'model'],
]

const src = join(import.meta.dirname, '../../src')
const importPattern = /^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'|import\('(\.{1,2}\/[^']+)'\)/gms

/** The top-level folder of a file under src/ (`tool` for src/tool.ts). */
function folderOf(file: string): string {
  const [first = '', second] = file.split('/')
  return second === undefined ? first.replace(/\.ts$/, '') : first
}

/** Every src/ file (relative to src/) with the src/ files it imports, type imports included. */
function fileImports(): Map<string, string[]> {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
  return new Map(
    files.map((file) => [
      file,
      [...readFileSync(join(src, file), 'utf8').matchAll(importPattern)].map((match) =>
        relative(src, normalize(join(src, dirname(file), match[1] ?? match[2] ?? ''))),
      ),
    ]),
  )
}

/** Every import from one src/ folder into another: `from -> to` with the importing files. */
function folderImports(): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const [file, targets] of fileImports()) {
    for (const target of targets) {
      const from = folderOf(file)
      const to = folderOf(target)
      if (from === to) continue
      const key = `${from} -> ${to}`
      edges.set(key, [...(edges.get(key) ?? []), file])
    }
  }
  return edges
}

function layerOf(folder: string): number {
  return layers.findIndex((layer) => layer.includes(folder))
}

describe('layers', () => {
  const edges = folderImports()

  test('every folder of src/ has its place in a layer', () => {
    const folders = new Set([...edges.keys()].flatMap((edge) => edge.split(' -> ')))
    expect([...folders].filter((folder) => layerOf(folder) === -1)).toEqual([])
  })

  test('imports point down only (type imports too)', () => {
    const upward = [...edges.entries()]
      .filter(([edge]) => {
        const [from = '', to = ''] = edge.split(' -> ')
        return layerOf(to) > layerOf(from)
      })
      .map(([edge, files]) => `${edge} (${files.join(', ')})`)
    expect(upward).toEqual([])
  })

  test('folders kept apart import each other in neither direction (type imports too)', () => {
    const crossing = apart.flatMap(([a, b]) =>
      [`${a} -> ${b}`, `${b} -> ${a}`].flatMap((edge) => {
        const files = edges.get(edge)
        return files === undefined ? [] : [`${edge} (${files.join(', ')})`]
      }),
    )
    expect(crossing).toEqual([])
  })

  // A cycle of files, even of type imports only, means none of them can be read or moved without the
  // others; the type that two of them share belongs in a file below both.
  test('no import cycle between files (type imports too)', () => {
    const imports = fileImports()
    const cycles: string[] = []
    const done = new Set<string>()
    const walk = (file: string, path: string[]) => {
      if (path.includes(file)) {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
        return
      }
      if (done.has(file)) return
      for (const target of imports.get(file) ?? []) walk(target, [...path, file])
      done.add(file)
    }
    for (const file of imports.keys()) walk(file, [])
    expect(cycles).toEqual([])
  })

  test('no import cycle between folders', () => {
    const next = new Map<string, string[]>()
    for (const edge of edges.keys()) {
      const [from = '', to = ''] = edge.split(' -> ')
      next.set(from, [...(next.get(from) ?? []), to])
    }
    const cycles: string[] = []
    const walk = (path: string[]) => {
      for (const to of next.get(path.at(-1) ?? '') ?? []) {
        if (to === path[0]) cycles.push([...path, to].join(' -> '))
        else if (!path.includes(to) && to > (path[0] ?? '')) walk([...path, to])
      }
    }
    for (const folder of next.keys()) walk([folder])
    expect(cycles).toEqual([])
  })
})
