/**
 * A caller's JSON Schema placed inside the AgentOutput schema (the output
 * schema as done's `data`) keeps its local references (`#/$defs/Item`, `#`)
 * pointing at the caller's root, which is no longer the document's root: the
 * references would resolve to nothing, and a provider that checks tool
 * schemas refuses the request. Its definitions are hoisted to the document's
 * root `$defs` under a prefix, and every local reference is rewritten to
 * where its target now is.
 */

/** Marks the node that holds an embedded schema; removed by hoistEmbeddedSchema. */
export const embeddedSchemaMarker = 'x-sextant-embedded'
const definitionKeys = ['$defs', 'definitions'] as const
const prefix = 'output_'

type Json = { [key: string]: unknown }

/** The document with the marked schema's definitions hoisted and its references rewritten (a new object). */
export function hoistEmbeddedSchema(document: Json): Json {
  const root = structuredClone(document)
  const found = findMarked(root, '')
  if (!found) return root
  const { node, pointer } = found
  delete node[embeddedSchemaMarker]
  const hoisted: Json = {}
  for (const key of definitionKeys) {
    const definitions = node[key]
    if (!isJson(definitions)) continue
    for (const [name, definition] of Object.entries(definitions)) hoisted[`${prefix}${name}`] = definition
    delete node[key]
  }
  const relocate = (ref: string): string => {
    if (ref !== '#' && !ref.startsWith('#/')) return ref
    for (const key of definitionKeys) {
      const start = `#/${key}/`
      if (ref.startsWith(start)) return `#/$defs/${prefix}${ref.slice(start.length)}`
    }
    return `#${pointer}${ref.slice(1)}`
  }
  rewriteRefs(node, relocate)
  for (const definition of Object.values(hoisted)) rewriteRefs(definition, relocate)
  if (Object.keys(hoisted).length > 0) {
    const existing = isJson(root.$defs) ? root.$defs : {}
    root.$defs = { ...existing, ...hoisted }
  }
  return root
}

function findMarked(value: unknown, pointer: string): { node: Json; pointer: string } | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findMarked(item, `${pointer}/${index}`)
      if (found) return found
    }
    return undefined
  }
  if (!isJson(value)) return undefined
  if (value[embeddedSchemaMarker] === true) return { node: value, pointer }
  for (const [key, child] of Object.entries(value)) {
    const found = findMarked(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
    if (found) return found
  }
  return undefined
}

function rewriteRefs(value: unknown, relocate: (ref: string) => string): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteRefs(item, relocate)
    return
  }
  if (!isJson(value)) return
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') value.$ref = relocate(child)
    else rewriteRefs(child, relocate)
  }
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
