/** The configured database cannot be reached or used (a postgres:// SEXTANT_DB that does not answer). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}
