import { z } from 'zod'
import { artifactKinds } from '../../../config-values.ts'

/*
 * A run's artifacts, on request: the tools the Playwright world debugs a failed run with. Each is a file
 * Playwright writes (a trace zip, a video per page, a HAR), kept under a fixed name beside the run.
 */

export { artifactKinds }
export type ArtifactKind = (typeof artifactKinds)[number]

export const ArtifactsSchema = z
  .strictObject({
    trace: z
      .boolean()
      .optional()
      .describe(
        "A Playwright trace (DOM snapshots, screenshots, network; each step's action a group) that opens in `npx playwright show-trace`. With secrets it has no screenshots, and its snapshots are scrubbed.",
      ),
    video: z
      .boolean()
      .optional()
      .describe(
        'A video (WebM) of each page of the run. Refused for a run with secrets: its frames would show what is typed.',
      ),
    har: z
      .boolean()
      .optional()
      .describe(
        "A HAR of the run's traffic, bodies embedded, secret values scrubbed (as is, URL-encoded, JSON-escaped, base64).",
      ),
  })
  .describe(
    "Files to keep of the run (off by default; the server's SEXTANT_ARTIFACTS when absent), served by GET /v1/runs/:id/artifacts, each at most SEXTANT_MAX_ARTIFACT_BYTES.",
  )

export type ArtifactSettings = z.infer<typeof ArtifactsSchema>

/** The name each kind is kept under; a run's second and later pages' videos are `video-2.webm`, …. */
export const artifactFileNames = { trace: 'trace.zip', video: 'video.webm', har: 'network.har' } as const

/** Which kind an artifact's name is: what `sextant runs export --format` and the viewer ask by. */
export function artifactKindOf(name: string): ArtifactKind | undefined {
  if (name === artifactFileNames.trace) return 'trace'
  if (name === artifactFileNames.har) return 'har'
  if (/^video(-\d+)?\.webm$/.test(name)) return 'video'
  return undefined
}

/** Whether any artifact is asked for. */
export function wantsArtifacts(settings: ArtifactSettings | undefined): settings is ArtifactSettings {
  return Boolean(settings?.trace || settings?.video || settings?.har)
}

export class ArtifactsError extends Error {
  override name = 'ArtifactsError'
}

/**
 * A video cannot be scrubbed: every frame between a keystroke and the next view shows the field as typed,
 * and masking it would need the frames the step screenshots mask one at a time. It is refused when the run
 * types secrets, before the run starts, rather than kept with them in it.
 */
export function refuseUnscrubbableArtifacts(
  settings: ArtifactSettings | undefined,
  hasSecrets: boolean,
): void {
  if (settings?.video && hasSecrets)
    throw new ArtifactsError(
      'artifacts.video cannot be recorded for a run with secrets: its frames would show the values typed. Ask for a trace (its screenshots are left out, its snapshots scrubbed) or a HAR instead.',
    )
}
