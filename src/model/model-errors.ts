/** Why a model name could not become a model, as an API error code and a CLI message. */
export type ModelConfigErrorCode = 'no_model' | 'bad_model_name' | 'unknown_provider' | 'missing_key'

/** A model that cannot be used as configured: the API answers 400, the CLI exits 2, before any browser starts. */
export class ModelConfigError extends Error {
  override name = 'ModelConfigError'
  readonly code: ModelConfigErrorCode
  constructor(code: ModelConfigErrorCode, message: string) {
    super(message)
    this.code = code
  }
}
