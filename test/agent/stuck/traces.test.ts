import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { resolveStuckOptions } from '../../../src/agent/stuck/options.ts'
import {
  detectEachStep,
  firstDetections,
  type RecordedTrace,
} from '../../../src/agent/stuck/recorded-trace.ts'
import { stuckKinds } from '../../../src/events/events.ts'

// The bench's recorded traces, as a regression check on the detectors' defaults.
const tracesDir = join(import.meta.dirname, '../../../bench/traces')
const traces: RecordedTrace[] = readdirSync(tracesDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(readFileSync(join(tracesDir, file), 'utf8')) as RecordedTrace)
const options = resolveStuckOptions()

describe('recorded traces', () => {
  test('cover every pattern and legitimate progress', () => {
    const counts = Object.groupBy(traces, (trace) => trace.pattern ?? 'healthy')
    for (const pattern of stuckKinds) {
      expect(counts[pattern]?.length ?? 0).toBeGreaterThanOrEqual(5)
    }
    expect(counts.healthy?.length ?? 0).toBeGreaterThanOrEqual(10)
  })

  test.each(traces.filter((trace) => trace.pattern !== null).map((trace) => [trace.name, trace] as const))(
    '%s is caught within 2 steps of the pattern becoming complete',
    (_, trace) => {
      const caughtAt = firstDetections(detectEachStep(trace, options)).get(trace.pattern!)
      expect(caughtAt).toBeDefined()
      expect(caughtAt! - trace.completeAt!).toBeLessThanOrEqual(2)
    },
  )

  test.each(traces.filter((trace) => trace.pattern === null).map((trace) => [trace.name, trace] as const))(
    '%s (healthy) is never flagged',
    (_, trace) => {
      expect(Object.fromEntries(firstDetections(detectEachStep(trace, options)))).toEqual({})
    },
  )
})
