/** The configured database cannot be reached or used (a postgres:// SEXTANT_DB that does not answer). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/**
 * A write for runs the writer no longer owns: another server ended them (its
 * lease lapsed) or took them over. Not transient: retrying never succeeds,
 * and the writer's runs must stop. What the writer still owned was written.
 */
export class RunFencedError extends Error {
  override name = 'RunFencedError'
  readonly runIds: readonly string[]
  constructor(runIds: readonly string[]) {
    super(
      `Run ${runIds.join(', ')} is no longer running as this writer's: it ended, or another server took it over.`,
    )
    this.runIds = runIds
  }
}
