export { ModelConfigError, type ModelConfigErrorCode } from './errors.ts'
export { type ModelSettings, type ResolvedModel, resolveModel } from './resolve.ts'
