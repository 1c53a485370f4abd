/**
 * The bounds a caller's JSON Schema is held to before anything recursive
 * reads it (Ajv's compiler, the event scrubber, the model's tool schema): a
 * nesting depth, and no reference that leads back to a schema applied to the
 * same value; and the depth of the data checked against it. A schema
 * nested thousands deep overflowed the stack as a 500; `{"$ref":"#"}` made
 * every check recurse without end, so every `done` failed.
 */

/** Levels of JSON objects and arrays in a schema, root included (a property of an object of… is two per level of data). */
export const maxSchemaDepth = 64

type Node = Record<string, unknown> | unknown[]

/** Keywords whose values are data, not schemas: a `$ref` key inside them is just a key. */
const dataKeywords = new Set(['const', 'enum', 'default', 'examples'])

/** What is wrong with `schema`'s shape, or undefined when it is within bounds. Never recurses on the schema itself. */
export function schemaBoundsProblem(schema: unknown): string | undefined {
  const nodes = new Map<string, Node>()
  const anchors = new Map<string, string>()
  const refs: { at: string; ref: string }[] = []
  const stack: { node: unknown; pointer: string; depth: number; data?: boolean }[] = [
    { node: schema, pointer: '', depth: 1 },
  ]
  while (stack.length > 0) {
    // The loop runs while the stack has an entry.
    const { node, pointer, depth, data } = stack.pop() as (typeof stack)[number]
    if (node === null || typeof node !== 'object') continue
    if (depth > maxSchemaDepth) return `is nested deeper than ${maxSchemaDepth} levels of objects and arrays.`
    if (!data) nodes.set(pointer, node as Node)
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((item, index) => [String(index), item])
      : Object.entries(node)
    if (!data && !Array.isArray(node)) {
      const record = node as Record<string, unknown>
      for (const keyword of ['$dynamicRef', '$recursiveRef'])
        if (keyword in record) return `uses ${keyword} (at ${pointer || '/'}), which is not supported.`
      if (typeof record.$anchor === 'string') anchors.set(record.$anchor, pointer)
      if (typeof record.$ref === 'string') refs.push({ at: pointer, ref: record.$ref })
    }
    for (const [key, child] of entries) {
      const inData = data === true || (!Array.isArray(node) && dataKeywords.has(key))
      stack.push({ node: child, pointer: `${pointer}/${escapePointer(key)}`, depth: depth + 1, data: inData })
    }
  }
  const targets = new Map<string, string>()
  for (const { at, ref } of refs) {
    const target = resolveLocal(ref, anchors)
    if (target === undefined || !nodes.has(target))
      return `has a $ref ${JSON.stringify(ref)} (at ${at || '/'}) that is not a reference inside the schema (#, #/path or #anchor).`
    targets.set(at, target)
  }
  const cycle = findCycle(nodes, targets)
  return cycle === undefined
    ? undefined
    : `has a recursive $ref (at ${cycle || '/'}): a reference may lead back to a schema around it only through a part of the value (properties, items), never to one applied to the same value.`
}

function resolveLocal(ref: string, anchors: Map<string, string>): string | undefined {
  if (!ref.startsWith('#')) return undefined
  const fragment = ref.slice(1)
  if (fragment === '') return ''
  if (!fragment.startsWith('/')) return anchors.get(decodeURIComponentSafe(fragment))
  return decodeURIComponentSafe(fragment)
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** Keywords whose subschemas apply to the same value (not to a part of it): recursion through them consumes nothing. */
const inPlace = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas'])

/**
 * A node on a cycle of the graph whose edges are "applies in place" and
 * "refers to", or undefined: a reference that comes back to a schema applied
 * to the same value, so checking it never ends (`{"$ref":"#"}`). A reference
 * that comes back through `properties`, `items` and the like (a tree) goes
 * one level down the data each time, which ends. Depth-first, with an
 * explicit stack.
 */
function findCycle(nodes: Map<string, Node>, targets: Map<string, string>): string | undefined {
  const children = (pointer: string): string[] => {
    const node = nodes.get(pointer)
    const out: string[] = []
    if (node && !Array.isArray(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (!inPlace.has(key)) continue
        const at = `${pointer}/${escapePointer(key)}`
        // allOf/anyOf/oneOf hold arrays of schemas, dependentSchemas an object of them, the rest one.
        if (Array.isArray(value)) out.push(...value.map((_, index) => `${at}/${index}`))
        else if (key === 'dependentSchemas' && value && typeof value === 'object')
          out.push(...Object.keys(value).map((name) => `${at}/${escapePointer(name)}`))
        else out.push(at)
      }
    }
    const target = targets.get(pointer)
    if (target !== undefined) out.push(target)
    return out.filter((child) => nodes.has(child))
  }
  const state = new Map<string, 'open' | 'closed'>()
  for (const start of nodes.keys()) {
    if (state.has(start)) continue
    const stack: { pointer: string; next: string[] }[] = [{ pointer: start, next: children(start) }]
    state.set(start, 'open')
    while (stack.length > 0) {
      // The loop runs while the stack has an entry.
      const top = stack[stack.length - 1] as (typeof stack)[number]
      const child = top.next.pop()
      if (child === undefined) {
        state.set(top.pointer, 'closed')
        stack.pop()
        continue
      }
      const seen = state.get(child)
      if (seen === 'open') return top.pointer
      if (seen === 'closed') continue
      state.set(child, 'open')
      stack.push({ pointer: child, next: children(child) })
    }
  }
  return undefined
}

/** Levels of JSON objects and arrays in the data checked against a schema (a tree schema recurses once a level). */
export const maxDataDepth = 256

/** Whether `value` nests objects and arrays deeper than `max` levels. Never recurses. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }]
  while (stack.length > 0) {
    // The loop runs while the stack has an entry.
    const { node, depth } = stack.pop() as (typeof stack)[number]
    if (node === null || typeof node !== 'object') continue
    if (depth > max) return true
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 })
  }
  return false
}
