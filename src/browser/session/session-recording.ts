import type { Page } from 'playwright-core'
import type { SessionRecording } from '../browser-session.ts'
import type { SettledPages } from '../settle/settled-pages.ts'
import { callOutcome, checkExpectation, describeTarget, findTarget } from '../view/durable-targets.ts'
import { describePoint, pointIn } from '../view/point-targets.ts'
import type { RefRegistry } from '../view/stable-refs.ts'

/** What the recording capability reads of its Playwright session. */
export interface RecordingParts {
  activePage(): Promise<Page>
  registry: RefRegistry
  /** The latest picture's scale: screenshot points are in its pixels. */
  pictureScale(): number
  settled: SettledPages
}

/** A Playwright session's recording capability: durable targets on the active page, over its ref registry. */
export function sessionRecording(parts: RecordingParts): SessionRecording {
  const { registry } = parts
  return {
    describeTarget: async (ref, signal) => describeTarget(await parts.activePage(), registry, ref, signal),
    describePoint: async (point, signal) =>
      describePoint(await parts.activePage(), registry, parts.pictureScale(), point, signal),
    pointIn: async (ref, offset) =>
      pointIn(await parts.activePage(), registry, parts.pictureScale(), ref, offset),
    async findTarget(target, signal) {
      // A replay never observes, so this is where its page settles: its first step comes on a page that has
      // only committed, whose field may be parsed long before the script that handles it has run.
      const { page } = await parts.settled.beforeObserving(() => parts.activePage(), signal)
      return findTarget(page, registry, target, signal)
    },
    checkExpectation: async (expectation, target, signal, waitMs) =>
      checkExpectation(await parts.activePage(), registry, expectation, target, signal, waitMs),
    callOutcome: async (probe, signal) => callOutcome(await parts.activePage(), registry, probe, signal),
  }
}
