import { readFile, writeFile } from 'node:fs/promises'
import type { BrowserSession } from '../../browser/browser-session.ts'
import type { ArtifactFile } from '../../browser/session/artifacts/artifact-recorder.ts'
import { scrubArtifact } from '../../browser/session/artifacts/scrub-artifacts.ts'
import type { EventDraft } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import type { RunSecrets } from '../../secrets/secrets.ts'
import { describeError } from '../../util/describe-error.ts'
import type { ArtifactStore } from '../../util/run-downloads.ts'

/** The bound on one artifact when the run's options give none (SEXTANT_MAX_ARTIFACT_BYTES). */
export const defaultMaxArtifactBytes = 100 * 1024 * 1024

export interface KeepArtifactsInput {
  runId: string
  secrets: RunSecrets
  store: ArtifactStore
  maxBytes: number
  log: Logger
}

/**
 * The run's artifacts, kept once its browser is done: the session stops its trace and closes its context
 * (which finishes the videos and the HAR), each file is scrubbed of the run's secrets and kept in the
 * run's store under its name. One over the bound is not kept, and the caller is told so in a warning;
 * so is one that could not be kept. The session's own copies go either way.
 */
export async function keepArtifacts(
  browser: BrowserSession,
  input: KeepArtifactsInput,
): Promise<EventDraft[]> {
  const recorded = browser.artifacts
  if (!recorded) return []
  let collected: Awaited<ReturnType<typeof recorded.collect>>
  try {
    collected = await recorded.collect()
  } catch (error) {
    input.log.warn({ runId: input.runId, err: error }, 'collecting the artifacts failed')
    const message = `The run's artifacts could not be collected: ${input.secrets.scrub(describeError(error))}`
    return [{ type: 'warning', code: 'artifact_not_kept', message }]
  }
  const warnings: EventDraft[] = []
  try {
    for (const file of collected.files) {
      const refused = await keepOne(file, input)
      if (refused) warnings.push({ type: 'warning', code: 'artifact_not_kept', message: refused })
    }
  } finally {
    await collected.dispose()
  }
  return warnings
}

/** Keeps one file; answers why not when it was not kept. */
async function keepOne(file: ArtifactFile, input: KeepArtifactsInput): Promise<string | undefined> {
  const tooLarge = (bytes: number) =>
    `The run's ${file.name} (${sizeText(bytes)}) is over the bound of ${sizeText(input.maxBytes)} an artifact may take (SEXTANT_MAX_ARTIFACT_BYTES) and was not kept.`
  // Refused before it is read: a file over the bound is never loaded whole.
  if (file.bytes > input.maxBytes) return tooLarge(file.bytes)
  try {
    const bytes = await readFile(file.path)
    const scrubbed = scrubArtifact(file.kind, bytes, input.secrets)
    if (scrubbed.byteLength > input.maxBytes) return tooLarge(scrubbed.byteLength)
    if (scrubbed !== bytes) await writeFile(file.path, scrubbed)
    await input.store.put(input.runId, file.name, file.path)
    return undefined
  } catch (error) {
    input.log.warn({ runId: input.runId, err: error, artifact: file.name }, 'keeping an artifact failed')
    return `The run's ${file.name} could not be kept: ${input.secrets.scrub(describeError(error))}`
  }
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
