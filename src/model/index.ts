export { ModelConfigError, type ModelConfigErrorCode } from './errors.ts'
export { classifyModelFailure, type ModelFailure } from './failure.ts'
export {
  costOf,
  findPrice,
  loadPriceTable,
  type ModelPrice,
  PriceFileError,
  type PriceTable,
} from './prices.ts'
export { type ModelSettings, type ResolvedModel, resolveModel } from './resolve.ts'
