// Stuck detection over recorded traces (bench/traces/<pattern>/*.json): for
// each pattern, how many stuck runs were caught and how many steps after the
// pattern became complete; how many healthy runs were wrongly flagged.
// Targets: every stuck trace caught within 2 steps; no healthy trace flagged.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolveStuckOptions } from '../src/agent/stuck/options.ts'
import { detectEachStep, firstDetections, type RecordedTrace } from '../src/agent/stuck/recorded-trace.ts'
import type { StuckKind } from '../src/events/events.ts'
import { stuckKinds } from '../src/events/events.ts'

const tracesDir = join(dirname(fileURLToPath(import.meta.url)), 'traces')
const options = resolveStuckOptions()

const traces: RecordedTrace[] = readdirSync(tracesDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(readFileSync(join(tracesDir, file), 'utf8')) as RecordedTrace)

interface Outcome {
  trace: RecordedTrace
  first: Map<StuckKind, number>
  /** Steps between the pattern becoming complete and its detection (negative: earlier). */
  delay?: number
}

const outcomes: Outcome[] = traces.map((trace) => {
  const first = firstDetections(detectEachStep(trace, options))
  const caughtAt = trace.pattern ? first.get(trace.pattern) : undefined
  const delay =
    caughtAt !== undefined && trace.completeAt !== undefined ? caughtAt - trace.completeAt : undefined
  return { trace, first, delay }
})

const pad = (value: unknown, width: number) => String(value).padEnd(width)
const padLeft = (value: unknown, width: number) => String(value).padStart(width)
const others = (outcome: Outcome) =>
  [...outcome.first.entries()]
    .filter(([kind]) => kind !== outcome.trace.pattern)
    .map(([kind, step]) => `${kind}@${step}`)
    .join(' ') || '-'

console.log(`Stuck detection over ${traces.length} recorded traces (default options)\n`)
console.log(
  `${pad('pattern', 16)}${padLeft('traces', 7)}${padLeft('caught', 8)}${padLeft('≤2 steps', 10)}  ${pad('delay per trace (detected − complete)', 40)}`,
)
for (const kind of stuckKinds) {
  const group = outcomes.filter((outcome) => outcome.trace.pattern === kind)
  const caught = group.filter((outcome) => outcome.delay !== undefined)
  const inTime = caught.filter((outcome) => outcome.delay !== undefined && outcome.delay <= 2)
  const delays = group
    .map((outcome) => (outcome.delay === undefined ? 'missed' : String(outcome.delay)))
    .join(' ')
  console.log(
    `${pad(kind, 16)}${padLeft(group.length, 7)}${padLeft(caught.length, 8)}${padLeft(inTime.length, 10)}  ${delays}`,
  )
}
const healthy = outcomes.filter((outcome) => outcome.trace.pattern === null)
const flagged = healthy.filter((outcome) => outcome.first.size > 0)
console.log(`${pad('healthy', 16)}${padLeft(healthy.length, 7)}  wrongly flagged: ${flagged.length}\n`)

console.log(
  `${pad('trace', 40)}${pad('pattern', 16)}${padLeft('complete', 9)}${padLeft('caught', 8)}${padLeft('delay', 7)}  also fired`,
)
for (const outcome of outcomes) {
  const { trace } = outcome
  const caughtAt = trace.pattern ? outcome.first.get(trace.pattern) : undefined
  console.log(
    `${pad(trace.name, 40)}${pad(trace.pattern ?? 'healthy', 16)}${padLeft(trace.completeAt ?? '-', 9)}` +
      `${padLeft(caughtAt ?? '-', 8)}${padLeft(outcome.delay ?? '-', 7)}  ${others(outcome)}`,
  )
}
