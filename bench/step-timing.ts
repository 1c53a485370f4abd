// Where the step bench's Sextant time goes: a session that times each of its
// parts, the screenshot's share of the critical path, the prompt, and the cost
// of making the step's events.
import { readFileSync } from 'node:fs'
import { eventStamper } from '../src/agent/run/event-stamper.ts'
import type { BrowserSession } from '../src/browser/browser-session.ts'
import { defaultMaxEventBytes } from '../src/events/event-cap.ts'
import { type AgentEvent, type EventDraft, isLiveOnly } from '../src/events/events.ts'
import { RunSecrets } from '../src/secrets/secrets.ts'
import type { AnyTool } from '../src/tool.ts'

/** Time spent in each part of a step, summed over the run, in ms. */
export type Parts = Record<
  | 'act'
  | 'observe'
  | 'settle'
  | 'view'
  | 'shot'
  | 'shotOnPath'
  | 'box'
  | 'target'
  | 'boxOrTarget'
  | 'outcome'
  | 'prompt'
  | 'events',
  number
>

export const emptyParts = (): Parts => ({
  act: 0,
  observe: 0,
  settle: 0,
  view: 0,
  shot: 0,
  shotOnPath: 0,
  box: 0,
  target: 0,
  boxOrTarget: 0,
  outcome: 0,
  prompt: 0,
  events: 0,
})

/** A session that adds up its parts' times, and the moments the bench needs to split a step. */
export interface TimedSession {
  session: BrowserSession
  parts: Parts
  /** The model was asked: the time since the last observation ended is the prompt's (stuck detection off). */
  asked(): void
  /** Counting starts now (the run's first observation is its start, not a step). */
  reset(): void
}

/** The bench's sessions are Playwright sessions, which have every optional method (`missing` never runs). */
function missing(method: string): never {
  throw new Error(`The bench's session has no ${method}().`)
}

/**
 * Delegates to a real session, adding up how long each of its parts takes.
 * The screenshot runs beside the view and the model; the part of it the next
 * action had to wait for (the session holds actions until it is taken) is
 * its share of the critical path, `shotOnPath`, and is left out of `act`.
 */
export function timedSession(inner: BrowserSession): TimedSession {
  let parts = emptyParts()
  let observedAt: number | undefined
  /** When the latest screenshot ended; undefined while it is being taken. */
  let shotEndedAt: number | undefined = Number.NEGATIVE_INFINITY
  const time = async <T>(part: keyof Parts, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      parts[part] += performance.now() - started
    }
  }
  // The box and the target are asked at once: their wall-clock time together is what the step pays.
  let asking = 0
  let askingSince = 0
  const ask = async <T>(part: 'box' | 'target', work: () => Promise<T>): Promise<T> => {
    if (asking++ === 0) askingSince = performance.now()
    try {
      return await time(part, work)
    } finally {
      if (--asking === 0) parts.boxOrTarget += performance.now() - askingSince
    }
  }
  const act = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    const shotUnderWay = shotEndedAt === undefined
    try {
      return await work()
    } finally {
      const ended = performance.now()
      // The action began while the screenshot was being taken: it waited for it until it ended.
      const waitedUntil = shotUnderWay ? (shotEndedAt ?? started) : started
      const onPath = Math.min(ended, Math.max(started, waitedUntil)) - started
      parts.shotOnPath += onPath
      parts.act += ended - started - onPath
    }
  }
  const tools = inner
    .tools()
    .map((tool): AnyTool => ({ ...tool, execute: (input, ctx) => act(() => tool.execute(input, ctx)) }))
  const session: BrowserSession = {
    observe: async (signal) => {
      const observation = await time('observe', () => inner.observe(signal))
      parts.settle += observation.timings?.settleMs ?? Number.NaN
      parts.view += observation.timings?.viewMs ?? Number.NaN
      observedAt = performance.now()
      return observation
    },
    tools: () => tools,
    pictures: {
      screenshot: (options, signal) => {
        const started = performance.now()
        const shot = inner.pictures?.screenshot(options, signal) ?? missing('pictures')
        shotEndedAt = undefined
        const ended = () => {
          shotEndedAt = performance.now()
          parts.shot += shotEndedAt - started
        }
        shot.then(ended, ended)
        return shot
      },
      elementBox: (ref, signal) =>
        ask('box', () => inner.pictures?.elementBox(ref, signal) ?? missing('pictures')),
    },
    recording: {
      ...(inner.recording ?? missing('recording')),
      describeTarget: (ref, signal) =>
        ask('target', () => inner.recording?.describeTarget(ref, signal) ?? missing('recording')),
      callOutcome: (probe, signal) =>
        time('outcome', () => inner.recording?.callOutcome(probe, signal) ?? missing('recording')),
    },
    close: () => inner.close(),
  }
  return {
    session,
    get parts() {
      return parts
    },
    asked: () => {
      if (observedAt !== undefined) parts.prompt += performance.now() - observedAt
      observedAt = undefined
    },
    reset: () => {
      parts = emptyParts()
      observedAt = undefined
    },
  }
}

/**
 * What making these events costs the loop (secrets scrubbed, validated,
 * stamped, capped), timed by stamping them again the same way after the run:
 * the loop does this between transitions, on the critical path.
 */
export function stampingMs(events: AgentEvent[]): number {
  const stamp = eventStamper({
    runId: 'bench',
    secrets: RunSecrets.none(),
    maxEventBytes: defaultMaxEventBytes,
    now: Date.now,
    onCut: () => {},
  })
  const drafts = events.map(({ runId: _runId, seq: _seq, at: _at, ...draft }) => draft as EventDraft)
  // A step may begin with live-only text (it takes the seq of the event before it): a stored event goes
  // first, untimed, as run_started does in a run.
  const stored = drafts.find((draft) => !isLiveOnly(draft))
  if (stored) stamp(stored)
  const started = performance.now()
  for (const draft of drafts) stamp(draft)
  return performance.now() - started
}

/**
 * The CPU time the whole machine has spent busy, in ms (Linux's /proc/stat; NaN elsewhere): a step's cost
 * in Chromium's processes as well as this one. The suite is CPU-bound on 2 cores, so a step that costs more
 * CPU makes every test slower even when its wall time holds.
 */
export function machineBusyMs(): number {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number)
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields
    return ((user + nice + system + irq + softirq) * 1000) / 100
  } catch {
    return Number.NaN
  }
}
