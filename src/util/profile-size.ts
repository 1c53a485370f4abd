/**
 * The profile would be larger than the store keeps: nothing was written, and
 * what was stored before is intact. A page can fill storage on as many
 * subdomains as it likes; this is what bounds it. It lives below store/ because
 * the agent, which never imports the store, tells this refusal apart too.
 */
export class ProfileTooLargeError extends Error {
  override name = 'ProfileTooLargeError'
  readonly size: number
  readonly limit: number
  constructor(name: string, size: number, limit: number) {
    super(
      `Profile "${name}" would hold ${bytes(size)}, more than the limit of ${bytes(limit)} (SEXTANT_MAX_PROFILE_BYTES).`,
    )
    this.size = size
    this.limit = limit
  }
}

function bytes(count: number): string {
  return `${count.toLocaleString('en-US')} bytes`
}
