import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Screenshot } from '../browser/browser-session.ts'
import type { EventDraft } from '../events/events.ts'
import { isAbortError } from '../tool.ts'
import { describeError } from '../util/describe-error.ts'
import { stepPageViewFile, stepScreenshotFile, stepScreenshotUrl } from '../util/run-files.ts'
import type { AgentContext } from './run-context.ts'

/** Vision sends the model at most this width: about what providers scale images to anyway. */
export const visionMaxWidth = 1280

export interface StepScreenshot {
  /** The URL the `observation` event carries, when the file was kept. */
  url?: string
  /** The picture itself, for the model's prompt when vision is on. */
  image?: Screenshot
}

/**
 * Takes the step's screenshot when the run keeps screenshots or shows them to
 * the model. A screenshot that fails costs a warning, never the step.
 */
export async function takeStepScreenshot(
  ctx: AgentContext,
  step: number,
  pageView: string,
  effects: EventDraft[],
): Promise<StepScreenshot> {
  const settings = ctx.screenshots
  const browser = ctx.browser
  if ((!settings && !ctx.vision) || !browser?.screenshot) return {}
  const maxWidth = Math.min(settings?.maxWidth ?? visionMaxWidth, ctx.vision ? visionMaxWidth : Infinity)
  const options = {
    maxWidth,
    ...(settings?.quality === undefined ? {} : { quality: settings.quality }),
    // Whatever shows a secret's value is blanked in both pictures, the kept one and the model's.
    ...(ctx.secrets.isEmpty ? {} : { secrets: ctx.secrets }),
  }
  const labels = Boolean(ctx.vision && ctx.visionLabels)
  try {
    if (!settings) return { image: await browser.screenshot({ ...options, labels }, ctx.signal) }
    const kept = await browser.screenshot(options, ctx.signal)
    // People look at the kept picture; only the model's copy carries the ref labels.
    const image = labels ? await browser.screenshot({ ...options, labels }, ctx.signal) : kept
    const file = stepScreenshotFile(settings.dir, ctx.runId, step)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, kept.data)
    // The page view as the model read it, for a viewer's "page view" of the step. It holds what the
    // prompt holds, so it must pass the same secret scrubbing as the prompt does.
    await writeFile(stepPageViewFile(settings.dir, ctx.runId, step), pageView)
    return { url: stepScreenshotUrl(ctx.runId, step), image }
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    const message = `The screenshot of step ${step} could not be taken: ${describeError(error)}`
    ctx.log.warn({ runId: ctx.runId, err: error }, 'screenshot failed')
    effects.push({ type: 'warning', code: 'screenshot_failed', message })
    return {}
  }
}

/**
 * Adds to a `tool_call_start` the box of the element its input names by ref,
 * so a viewer can outline it on the step's screenshot. Only when the run keeps
 * screenshots; a box that cannot be found is simply left out.
 */
export async function markTarget(effects: EventDraft[], ctx: AgentContext): Promise<void> {
  if (!ctx.screenshots || !ctx.browser?.elementBox) return
  const start = effects.find((effect) => effect.type === 'tool_call_start')
  if (start?.type !== 'tool_call_start') return
  const input = start.input
  const ref = input && typeof input === 'object' && 'ref' in input ? input.ref : undefined
  if (typeof ref !== 'string') return
  try {
    const box = await ctx.browser.elementBox(ref, ctx.signal)
    if (box) start.box = box
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
  }
}
