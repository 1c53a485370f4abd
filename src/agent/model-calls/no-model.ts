import type { LanguageModel } from 'ai'

/**
 * Stands in for the model of a replay run without one. The replay never asks
 * it (it ends with `error` where it would need to heal); if anything did, the
 * call fails with this message rather than reaching some default provider.
 */
export function noModel(): LanguageModel {
  const refuse = () =>
    Promise.reject(new Error('No model is configured for this run (a replay without a model).'))
  return {
    specificationVersion: 'v4',
    provider: 'none',
    modelId: 'none',
    supportedUrls: {},
    doGenerate: refuse,
    doStream: refuse,
  }
}
