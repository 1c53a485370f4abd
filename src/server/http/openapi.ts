import type { Handler, Hono } from 'hono'
import { describeRoute, generateSpecs } from 'hono-openapi'
import type { OpenAPIV3_1 } from 'openapi-types'
import { z } from 'zod'
import type { AppEnv } from './app-env.ts'
import { errorResponse, namedSchemas, open } from './route-docs.ts'

export interface OpenApiOptions {
  version: string
  /** The API needs a bearer token (SEXTANT_API_TOKEN). */
  auth: boolean
}

export const openApiDescription = describeRoute({
  summary: 'This document',
  ...open,
  responses: { '200': { description: 'OpenAPI 3.1' } },
})

/**
 * GET /openapi.json: generated on first request, from the describeRoute of
 * every route the app has then (hono-openapi walks `app.routes`), so a route
 * and its description live side by side. test/server/http/openapi.test.ts fails when
 * a route has none.
 */
export function openApiHandler(app: Hono<AppEnv>, options: OpenApiOptions): Handler<AppEnv> {
  let document: Promise<OpenAPIV3_1.Document> | undefined
  return async (c) => {
    document ??= openApiDocument(app, options).catch((error: unknown) => {
      document = undefined
      throw error
    })
    return c.json(await document)
  }
}

export async function openApiDocument(
  app: Hono<AppEnv>,
  options: OpenApiOptions,
): Promise<OpenAPIV3_1.Document> {
  const specs = await generateSpecs(app, {
    documentation: {
      info: {
        title: 'Sextant',
        version: options.version,
        description:
          'A language model operates a real Chromium browser step by step; every step is streamed.',
      },
      ...(options.auth ? { security: [{ bearer: [] }] } : {}),
      components: {
        schemas: componentSchemas(),
        ...(options.auth ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } : {}),
      },
    },
    // The viewer's assets, /favicon.ico and /openapi.json look like static files to it, and are routes here.
    excludeStaticFile: false,
    defaultValidationErrorResponse: false,
  })
  const document = specs as OpenAPIV3_1.Document
  if (options.auth) requireTokenAnswers401(document)
  return document
}

/** Every operation under the bearer scheme (all but those marked `open`) can answer 401. */
function requireTokenAnswers401(document: OpenAPIV3_1.Document): void {
  const unauthorized = errorResponse('Missing or wrong bearer token.')
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      if (typeof operation !== 'object' || !('responses' in operation)) continue
      const { security, responses } = operation as OpenAPIV3_1.OperationObject
      if (security?.length === 0 || !responses) continue
      responses['401'] = unauthorized
    }
  }
}

/** The named schemas as JSON Schema, each referring to the others by `#/components/schemas/<name>`. */
function componentSchemas(): Record<string, OpenAPIV3_1.SchemaObject> {
  const registry = z.registry<{ id: string }>()
  for (const [schema, id] of namedSchemas) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    // Request bodies are described as accepted; responses as produced.
    io: 'input',
    unrepresentable: 'any',
  })
  for (const schema of Object.values(schemas)) {
    delete (schema as { $schema?: string }).$schema
    delete (schema as { $id?: string }).$id
  }
  return schemas as Record<string, OpenAPIV3_1.SchemaObject>
}
