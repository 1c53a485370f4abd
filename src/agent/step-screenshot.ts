import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Screenshot } from '../browser/types.ts'
import type { EventDraft } from '../events/events.ts'
import { stepScreenshotFile, stepScreenshotUrl } from '../store/run-files.ts'
import { isAbortError } from '../tool.ts'
import { describeError } from '../util/errors.ts'
import type { AgentContext } from './loop-types.ts'

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
export async function takeStepScreenshot(ctx: AgentContext, effects: EventDraft[]): Promise<StepScreenshot> {
  const settings = ctx.screenshots
  const browser = ctx.browser
  if ((!settings && !ctx.vision) || !browser?.screenshot) return {}
  const maxWidth = Math.min(settings?.maxWidth ?? visionMaxWidth, ctx.vision ? visionMaxWidth : Infinity)
  try {
    const image = await browser.screenshot(
      { maxWidth, ...(settings?.quality === undefined ? {} : { quality: settings.quality }) },
      ctx.signal,
    )
    if (!settings) return { image }
    const file = stepScreenshotFile(settings.dir, ctx.runId, ctx.run.step)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, image.data)
    return { url: stepScreenshotUrl(ctx.runId, ctx.run.step), image }
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    const message = `The screenshot of step ${ctx.run.step} could not be taken: ${describeError(error)}`
    ctx.log.warn({ runId: ctx.runId, err: error }, 'screenshot failed')
    effects.push({ type: 'warning', code: 'screenshot_failed', message })
    return {}
  }
}
