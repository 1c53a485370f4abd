import { unzipSync, zipSync } from 'fflate'
import type { RunSecrets } from '../../../secrets/secrets.ts'
import type { ArtifactKind } from './artifact-settings.ts'

/*
 * Secret values out of a run's artifacts, byte for byte where they are text. The trace's entries (its
 * events, DOM snapshots, network log and the bodies in `resources/`) and the HAR (with its base64 bodies
 * decoded first) are rewritten with each value, in each written form the scrubber knows, replaced by its
 * placeholder. Pictures cannot be scrubbed: a run with secrets records no video and no trace screenshots
 * (artifact-settings.ts, the session's options).
 */

const decoder = new TextDecoder('utf-8', { fatal: true })
const encoder = new TextEncoder()

/** `bytes` with every secret value out of it; the same bytes when the run has none. */
export function scrubArtifact(kind: ArtifactKind, bytes: Uint8Array, secrets: RunSecrets): Uint8Array {
  if (secrets.isEmpty) return bytes
  if (kind === 'trace') return scrubZip(bytes, secrets)
  if (kind === 'har') return scrubHar(bytes, secrets)
  return bytes
}

/** Every entry of the trace zip that is text is scrubbed; a picture or other binary entry is kept as is. */
function scrubZip(bytes: Uint8Array, secrets: RunSecrets): Uint8Array {
  const entries = unzipSync(bytes)
  for (const [name, data] of Object.entries(entries)) {
    const text = asText(data)
    if (text === undefined) continue
    const scrubbed = secrets.scrub(text)
    if (scrubbed !== text) entries[name] = encoder.encode(scrubbed)
  }
  return zipSync(entries)
}

function scrubHar(bytes: Uint8Array, secrets: RunSecrets): Uint8Array {
  const har: unknown = JSON.parse(decoder.decode(bytes))
  return encoder.encode(JSON.stringify(secrets.scrubDeep(decodedBodies(har, secrets))))
}

/** The HAR with each base64 body that is text scrubbed inside its encoding (a secret in it has no fixed base64 form). */
function decodedBodies(value: unknown, secrets: RunSecrets): unknown {
  if (Array.isArray(value)) return value.map((item) => decodedBodies(item, secrets))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value).map(([key, item]) => [key, decodedBodies(item, secrets)] as const)
  const object = Object.fromEntries(entries) as Record<string, unknown>
  if (object.encoding === 'base64' && typeof object.text === 'string') {
    const text = asText(Buffer.from(object.text, 'base64'))
    if (text !== undefined) {
      const scrubbed = secrets.scrub(text)
      if (scrubbed !== text) object.text = Buffer.from(scrubbed, 'utf8').toString('base64')
    }
  }
  return object
}

/** The bytes as text when they are UTF-8 (a page, a script, JSON), else undefined (a picture, a font). */
function asText(data: Uint8Array): string | undefined {
  try {
    return decoder.decode(data)
  } catch {
    return undefined
  }
}
