import { describe, expect, test } from 'vitest'
import { silentLogger } from '../../../src/log.ts'
import { createApp } from '../../../src/server/app.ts'
import { ServerMetrics } from '../../../src/server/metrics.ts'
import { quietManager } from '../support.ts'

interface Operation {
  security?: unknown[]
  responses: Record<string, unknown>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, unknown> }
}

function appWith(apiToken?: string) {
  const manager = quietManager()
  return createApp({
    manager,
    // With metrics, so that /metrics is among the routes.
    metrics: new ServerMetrics({ liveRuns: () => 0 }),
    log: silentLogger(),
    version: '0.0.0',
    ...(apiToken ? { apiToken } : {}),
  })
}

async function documentOf(app: ReturnType<typeof appWith>): Promise<Document> {
  const response = await app.request('/openapi.json')
  expect(response.status).toBe(200)
  return (await response.json()) as Document
}

function operations(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  )
}

describe('/openapi.json', () => {
  test('describes every route the app answers, and nothing else', async () => {
    const app = appWith()
    const routes = new Set(
      app.routes
        // Middleware (app.use) is registered for ALL methods; it answers nothing itself.
        .filter((route) => route.method !== 'ALL')
        .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
    )
    expect(routes.size).toBeGreaterThanOrEqual(19)
    const described = operations(await documentOf(app)).map(([operation]) => operation)
    expect(described.sort()).toEqual([...routes].sort())
  })

  test('every schema it refers to is among its components', async () => {
    const document = await documentOf(appWith())
    const refs = new Set(
      [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]),
    )
    expect(refs.size).toBeGreaterThan(10)
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//)
      expect(document.components.schemas, ref).toHaveProperty([ref!.split('/').pop()!])
    }
  })

  test("an observation event's page log is described: its console entries' levels and its requests' fields", async () => {
    const document = await documentOf(appWith())
    const observation = JSON.stringify(document.components.schemas.ObservationEvent)
    expect(observation).toContain('"pageLog"')
    for (const field of ['"error","warning","exception"', '"refused"', '"failure"', '"omitted"'])
      expect(observation).toContain(field)
  })

  test('with a token, every route behind it can answer 401, and the open ones are marked open', async () => {
    const document = await documentOf(appWith('secret-token'))
    const open = operations(document)
      .filter(([, operation]) => operation.security?.length === 0)
      .map(([name]) => name)
    expect(open.sort()).toEqual([
      'GET /',
      'GET /favicon.ico',
      'GET /healthz',
      // Not the API token's: the fleet's relay secret guards it (routes/owner-text.ts).
      'GET /internal/runs/{id}/text',
      'GET /openapi.json',
      'GET /runs/{id}',
      'GET /viewer/viewer.css',
      'GET /viewer/viewer.js',
    ])
    for (const [name, operation] of operations(document)) {
      expect(Object.hasOwn(operation.responses, '401'), name).toBe(!open.includes(name))
    }
  })

  test('without a token, no route answers 401', async () => {
    for (const [name, operation] of operations(await documentOf(appWith()))) {
      expect(operation.responses, name).not.toHaveProperty('401')
    }
  })
})
