import { isRecord } from '../util/is-record.ts'

/**
 * A caller's JSON Schema in the form OpenAI's strict structured outputs
 * accept: every object closed (`additionalProperties: false`) with every
 * property required, an optional property turned required-and-nullable, and
 * the keywords strict mode refuses dropped (the answer is still checked
 * against the caller's own schema afterwards). `restore` removes the nulls
 * that stand for an absent optional property, so the caller's schema accepts
 * the answer. No strict form (an open map, a free-form object, `oneOf`,
 * `allOf`, a root that is not an object): undefined, and the caller asks
 * without strict.
 */

type Schema = Record<string, unknown>
type Restore = (value: unknown) => unknown

export interface StrictSchema {
  schema: Schema
  restore: Restore
}

/** Keywords the structured-outputs guide lists as not supported in strict mode. */
const refusedKeywords = [
  'minLength',
  'maxLength',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
]

class NotStrict extends Error {}

const same: Restore = (value) => value

export function strictOutputSchema(schema: Schema): StrictSchema | undefined {
  if (!isObjectSchema(schema)) return undefined
  try {
    const { schema: strict, restore } = strictNode(schema)
    for (const key of ['$defs', 'definitions'] as const) {
      const defs = schema[key]
      if (isRecord(defs)) {
        strict[key] = Object.fromEntries(
          Object.entries(defs).map(([name, def]) => [name, isRecord(def) ? strictNode(def).schema : def]),
        )
      }
    }
    return { schema: strict, restore }
  } catch (error) {
    if (error instanceof NotStrict) return undefined
    throw error
  }
}

function strictNode(node: Schema): StrictSchema {
  if ('oneOf' in node || 'allOf' in node || 'patternProperties' in node || 'not' in node)
    throw new NotStrict()
  const out: Schema = {}
  for (const [key, value] of Object.entries(node)) {
    if (refusedKeywords.includes(key) || key === '$defs' || key === 'definitions') continue
    out[key] = value
  }
  let restore = same
  if (isObjectSchema(node)) restore = strictObject(node, out)
  else if (isRecord(node.items)) {
    const items = strictNode(node.items)
    out.items = items.schema
    restore = (value) => (Array.isArray(value) ? value.map(items.restore) : value)
  } else if (Array.isArray(node.items)) throw new NotStrict()
  if (Array.isArray(node.anyOf)) {
    // Which branch an answer took is not known here: branches are made strict, their nulls kept.
    out.anyOf = node.anyOf.map((branch) => (isRecord(branch) ? strictNode(branch).schema : branch))
  }
  return { schema: out, restore }
}

function strictObject(node: Schema, out: Schema): Restore {
  const extra = node.additionalProperties
  if (extra !== undefined && extra !== false) throw new NotStrict()
  const properties = isRecord(node.properties) ? node.properties : {}
  const names = Object.keys(properties)
  // A free-form object has no strict form: strict mode closes it, so only {} could come back.
  if (names.length === 0 && extra === undefined && node.type === 'object') throw new NotStrict()
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : [])
  const restores = new Map<string, Restore>()
  const optional = new Set<string>()
  const strictProperties: Schema = {}
  for (const name of names) {
    const property = properties[name]
    if (!isRecord(property)) throw new NotStrict()
    const strict = strictNode(property)
    restores.set(name, strict.restore)
    if (required.has(name)) {
      strictProperties[name] = strict.schema
    } else {
      strictProperties[name] = allowsNull(property)
        ? strict.schema
        : { anyOf: [strict.schema, { type: 'null' }] }
      if (!allowsNull(property)) optional.add(name)
    }
  }
  out.properties = strictProperties
  out.required = names
  out.additionalProperties = false
  return (value) => {
    if (!isRecord(value)) return value
    const restored: Record<string, unknown> = {}
    for (const [name, entry] of Object.entries(value)) {
      if (entry === null && optional.has(name)) continue
      restored[name] = (restores.get(name) ?? same)(entry)
    }
    return restored
  }
}

function isObjectSchema(node: Schema): boolean {
  return node.type === 'object' || (node.type === undefined && isRecord(node.properties))
}

function allowsNull(node: Schema): boolean {
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true
  if (node.nullable === true) return true
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true
  return Array.isArray(node.anyOf) && node.anyOf.some((branch) => isRecord(branch) && allowsNull(branch))
}
