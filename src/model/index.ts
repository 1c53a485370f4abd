export { ModelConfigError, type ModelConfigErrorCode } from './errors.ts'
export { classifyModelFailure, type ModelFailure } from './failure.ts'
export { type ModelSettings, type ResolvedModel, resolveModel } from './resolve.ts'
