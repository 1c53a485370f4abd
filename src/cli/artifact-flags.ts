import type { ArtifactSettings } from '../browser/session/artifacts/artifact-settings.ts'
import type { Config } from '../config.ts'
import type { RunStore } from '../store/run-store.ts'
import { artifactPlace } from '../store/shared.ts'
import type { ArtifactStore } from '../util/run-downloads.ts'

/** `sextant run`'s artifact flags: the request's `artifacts`, a flag each. */
export const artifactFlagOptions = {
  trace: { type: 'boolean' },
  video: { type: 'boolean' },
  har: { type: 'boolean' },
} as const

/** The request's `artifacts` from `--trace`, `--video`, `--har`; undefined when none is given (SEXTANT_ARTIFACTS then). */
export function readArtifactFlags(values: {
  trace?: boolean | undefined
  video?: boolean | undefined
  har?: boolean | undefined
}): ArtifactSettings | undefined {
  const asked: ArtifactSettings = {
    ...(values.trace ? { trace: true } : {}),
    ...(values.video ? { video: true } : {}),
    ...(values.har ? { har: true } : {}),
  }
  return Object.keys(asked).length > 0 ? asked : undefined
}

/** Where a CLI run keeps its artifacts (the shared store it records in, else the runs folder) and their bound. */
export function artifactKeeping(
  config: Pick<Config, 'runsDir' | 'maxArtifactBytes'>,
  store: RunStore | undefined,
): { store: ArtifactStore; maxBytes: number } | undefined {
  const place = artifactPlace(store, config.runsDir)
  return place ? { store: place, maxBytes: config.maxArtifactBytes } : undefined
}
