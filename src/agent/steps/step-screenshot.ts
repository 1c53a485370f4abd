import type { Screenshot } from '../../browser/browser-session.ts'
import type { EventDraft } from '../../events/events.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { stepScreenshotUrl } from '../../util/run-files.ts'
import { folderStepFiles } from '../../util/step-files.ts'
import type { AgentContext, PendingScreenshot } from '../run/run-context.ts'

/** Vision sends the model at most this width: about what providers scale images to anyway. */
export const visionMaxWidth = 1280

/**
 * A step's screenshot under way. Neither promise ever rejects: the job may
 * run unawaited while the model thinks, and a failure is a warning, never the
 * step's (nor an unhandled rejection). It has its own signal, not the run's:
 * the observation already named its file, so a run aborted meanwhile still
 * keeps it if it comes soon enough (the run's end decides, and stops it).
 */
export interface StepScreenshotJob extends PendingScreenshot {
  /** The model's picture, once captured; undefined when none could be taken (or the job was stopped). */
  image: Promise<Screenshot | undefined>
}

/** The URL the step's kept screenshot will have, named in its observation before the file is written. */
export function keptScreenshotUrl(ctx: AgentContext, step: number): string | undefined {
  return ctx.screenshots && ctx.browser?.pictures ? stepScreenshotUrl(ctx.runId, step) : undefined
}

/**
 * Starts the step's screenshot when the run keeps screenshots or shows them
 * to the model; undefined when it does neither. The session takes it before
 * the next action (which waits for it), so the caller need not wait.
 */
export function startStepScreenshot(
  ctx: AgentContext,
  step: number,
  pageView: string,
): StepScreenshotJob | undefined {
  const settings = ctx.screenshots
  const screenshot = ctx.browser?.pictures?.screenshot
  if ((!settings && !ctx.vision) || !screenshot) return undefined
  const maxWidth = Math.min(settings?.maxWidth ?? visionMaxWidth, ctx.vision ? visionMaxWidth : Infinity)
  const options = {
    maxWidth,
    ...(settings?.quality === undefined ? {} : { quality: settings.quality }),
    // Whatever shows a secret's value is blanked in both pictures, the kept one and the model's.
    ...(ctx.secrets.isEmpty ? {} : { secrets: ctx.secrets }),
  }
  const labels = Boolean(ctx.vision && ctx.visionLabels)
  const stop = new AbortController()
  const signal = stop.signal
  const captured = (async () => {
    if (!settings) return { image: await screenshot({ ...options, labels }, signal) }
    const kept = await screenshot(options, signal)
    // People look at the kept picture; only the model's copy carries the ref labels.
    const image = labels ? await screenshot({ ...options, labels }, signal) : kept
    return { image, kept }
  })()
  const settled = captured
    .then(async ({ kept }) => {
      if (!settings || !kept || signal.aborted) return []
      const files = settings.files ?? folderStepFiles(settings.dir)
      // The page view as the model read it, for a viewer's "page view" of the step. It holds what the
      // prompt holds, so it must pass the same secret scrubbing as the prompt does.
      await files.put(ctx.runId, step, { screenshot: kept.data, pageView })
      return []
    })
    .catch((error: unknown): EventDraft[] => {
      if (isAbortError(error) || signal.aborted) return []
      const message = `The screenshot of step ${step} could not be taken: ${describeError(error)}`
      ctx.log.warn({ runId: ctx.runId, err: error }, 'screenshot failed')
      return [{ type: 'warning', code: 'screenshot_failed', message }]
    })
  return {
    image: captured.then(
      ({ image }) => image,
      () => undefined,
    ),
    settled,
    stop: () => stop.abort(),
  }
}

/**
 * Adds to a `tool_call_start` the box of the element its input names by ref,
 * so a viewer can outline it on the step's screenshot. Only when the run keeps
 * screenshots; a box that cannot be found is simply left out.
 */
export async function markTarget(effects: EventDraft[], ctx: AgentContext): Promise<void> {
  const pictures = ctx.browser?.pictures
  if (!ctx.screenshots || !pictures) return
  const start = effects.find((effect) => effect.type === 'tool_call_start')
  if (start?.type !== 'tool_call_start') return
  const input = start.input
  const ref = input && typeof input === 'object' && 'ref' in input ? input.ref : undefined
  if (typeof ref !== 'string') return
  try {
    const box = await pictures.elementBox(ref, ctx.signal)
    if (box) start.box = box
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
  }
}
