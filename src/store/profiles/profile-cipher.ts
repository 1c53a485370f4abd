import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/** A profile that cannot be opened with this key: the key changed, or the data was altered. */
export class ProfileKeyError extends Error {
  override name = 'ProfileKeyError'
}

const version = 'v1'
const ivBytes = 12
const tagBytes = 16

/** Reads a 32-byte key written as 64 hex digits or as base64; undefined when it is neither. */
export function parseProfileKey(text: string): Buffer | undefined {
  const trimmed = text.trim()
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex')
  const decoded = Buffer.from(trimmed, 'base64')
  return decoded.length === 32 ? decoded : undefined
}

/**
 * Seals profiles with AES-256-GCM: `v1:<base64 of iv, tag, ciphertext>`. A
 * fresh IV per seal; the profile's name is the additional data, so a sealed
 * value copied onto another profile's row does not open.
 */
export class ProfileCipher {
  readonly #key: Buffer

  constructor(key: Buffer) {
    if (key.length !== 32) throw new ProfileKeyError('A profile key must be 32 bytes (AES-256).')
    this.#key = key
  }

  seal(name: string, plain: string): string {
    const iv = randomBytes(ivBytes)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(Buffer.from(name))
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return `${version}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
  }

  open(name: string, sealed: string): string {
    const [tag, payload] = sealed.split(':', 2)
    if (tag !== version || payload === undefined)
      throw new ProfileKeyError(`Profile "${name}" is stored in a format this Sextant cannot read.`)
    const bytes = Buffer.from(payload, 'base64')
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, ivBytes))
      decipher.setAAD(Buffer.from(name))
      decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes))
      return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]).toString(
        'utf8',
      )
    } catch {
      throw new ProfileKeyError(
        `Profile "${name}" cannot be decrypted: it was saved under another key (SEXTANT_PROFILE_KEY or the key file), or altered.`,
      )
    }
  }
}
