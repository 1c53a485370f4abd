import { readFileSync } from 'node:fs'
import { type JsonSchemaObject, OutputSchemaError, resolveOutput } from '../agent/output/output-schema.ts'
import type { AgentEvent } from '../events/events.ts'
import { describeError } from '../util/describe-error.ts'
import { UsageError } from './help.ts'

/** `--output schema.json`: the run's output schema, read and checked before anything starts. */
export function readOutputSchema(path: string): JsonSchemaObject {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`--output ${path}: cannot read the file: ${describeError(error)}`)
  }
  let schema: unknown
  try {
    schema = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--output ${path}: not JSON: ${describeError(error)}`)
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new UsageError(`--output ${path}: a JSON Schema must be an object.`)
  try {
    resolveOutput(schema as JsonSchemaObject)
  } catch (error) {
    if (error instanceof OutputSchemaError) throw new UsageError(`--output ${path}: ${error.message}`)
    throw error
  }
  return schema as JsonSchemaObject
}

/** The data a finished run printed on stdout (a line of JSON), or nothing when it gave none. */
export function dataLine(last: AgentEvent | undefined): string {
  if (last?.type !== 'done' || last.result.data === undefined) return ''
  return `${JSON.stringify(last.result.data, null, 2)}\n`
}
