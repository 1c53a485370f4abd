import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import { z } from 'zod'
import { describeError } from '../../util/describe-error.ts'
import { type LinearRegExp, linearRegExp } from '../../util/linear-regexp.ts'
import { maxDataDepth, nestedDeeperThan, schemaBoundsProblem } from './schema-bounds.ts'

/**
 * A run's output schema (`RunOptions.output`): the shape of the data `done`
 * must carry. A zod schema (the library) or a JSON Schema object (HTTP, CLI,
 * library); both end up as one JSON Schema shown to the model and one check.
 */

/** A JSON Schema object, as a request or a file gives it. */
export type JsonSchemaObject = { [key: string]: unknown }

/** What `RunOptions.output` takes: a zod schema, whose output type `result.data` gets, or a JSON Schema. */
export type OutputSchema<Data = unknown> = z.ZodType<Data> | JsonSchemaObject

export type DataCheck = { ok: true; data: unknown } | { ok: false; problems: string }

/** An output schema, ready: what the model is shown, and the check of what it answers. */
export interface ResolvedOutput {
  /** JSON Schema of the data, as the model is shown it (and a recording keeps it). */
  jsonSchema: JsonSchemaObject
  check(data: unknown): DataCheck
}

/** The output schema itself is unusable: the message names the problem (a `400` over HTTP). */
export class OutputSchemaError extends Error {
  override name = 'OutputSchemaError'
}

/** Bound on a JSON Schema's JSON over HTTP and in files. */
export const maxOutputSchemaBytes = 64 * 1024

/**
 * A JSON Schema as a request or a suite gives it, checked as it is parsed, so
 * that an unusable one is refused naming the problem (a `400` over HTTP).
 */
export const JsonOutputSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  try {
    resolveOutput(schema)
  } catch (error) {
    if (!(error instanceof OutputSchemaError)) throw error
    ctx.addIssue({ code: 'custom', message: error.message })
  }
})

/** Resolves an output schema; throws OutputSchemaError when it is not a usable schema. */
export function resolveOutput(schema: OutputSchema): ResolvedOutput {
  if (schema instanceof z.ZodType) return fromZod(schema)
  return fromJsonSchema(schema)
}

function fromZod(schema: z.ZodType): ResolvedOutput {
  let jsonSchema: JsonSchemaObject
  try {
    // io 'input': what the model must write, before any transform of the caller's schema.
    const { $schema: _dialect, ...body } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
    jsonSchema = body
  } catch (error) {
    throw new OutputSchemaError(`"output" cannot be shown as JSON Schema: ${describeError(error)}`)
  }
  return {
    jsonSchema,
    check(data) {
      const parsed = schema.safeParse(data)
      if (parsed.success) return { ok: true, data: parsed.data }
      return { ok: false, problems: z.prettifyError(parsed.error) }
    },
  }
}

function fromJsonSchema(schema: JsonSchemaObject): ResolvedOutput {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new OutputSchemaError('"output" must be a JSON Schema object.')
  // First, and without recursion: what follows (the size, Ajv) walks the schema recursively.
  const bounds = schemaBoundsProblem(schema)
  if (bounds) throw new OutputSchemaError(`"output" ${bounds}`)
  const size = Buffer.byteLength(JSON.stringify(schema))
  if (size > maxOutputSchemaBytes)
    throw new OutputSchemaError(`"output" is ${size} bytes of JSON Schema; at most ${maxOutputSchemaBytes}.`)
  // strict: false lets unknown keywords through (titles, examples, vendor keys) as JSON Schema allows;
  // the meta-schema check below still refuses a keyword with a wrong value.
  // `pattern` and `patternProperties` run on RE2: a caller's pattern cannot stall the server (util/linear-regexp.ts).
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    validateSchema: false,
    code: { regExp: ajvRegExp },
  })
  const { $schema: _dialect, ...body } = schema
  if (!ajv.validateSchema(body))
    throw new OutputSchemaError(`"output" is not a valid JSON Schema: ${ajvProblems(ajv.errors, 'output')}`)
  let validate: ReturnType<Ajv2020['compile']>
  try {
    validate = ajv.compile(body)
  } catch (error) {
    throw new OutputSchemaError(`"output" is not a usable JSON Schema: ${describeError(error)}`)
  }
  return {
    jsonSchema: body,
    check(data) {
      // A tree schema's check recurses once per level of the data: the model's data is bounded first.
      if (nestedDeeperThan(data, maxDataDepth))
        return { ok: false, problems: `data is nested deeper than ${maxDataDepth} levels` }
      if (validate(data)) return { ok: true, data }
      return { ok: false, problems: ajvProblems(validate.errors, 'data') }
    },
  }
}

/** Ajv's errors, each as where (a JSON pointer under `root`) and what. */
function ajvProblems(errors: ErrorObject[] | null | undefined, root: string): string {
  if (!errors || errors.length === 0) return 'unknown problem'
  return errors
    .map((error) => {
      const where = `${root}${error.instancePath}`
      const extra =
        error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''
      return `${where} ${error.message ?? error.keyword}${extra}`
    })
    .join('; ')
}

/**
 * Ajv's hook for the patterns it compiles: a linear-time one, or a PatternError
 * naming it (the compile fails). `code` names it in generated source, which is
 * only written out for standalone validators (never made here).
 */
const ajvRegExp = Object.assign(
  (source: string, flags: string): LinearRegExp =>
    // Ajv keys its compiled patterns by their text.
    Object.assign(linearRegExp(source, flags), { toString: () => `/${source}/${flags}` }),
  { code: 'linearRegExp' },
)
