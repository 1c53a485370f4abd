import { APICallError, UnsupportedFunctionalityError } from 'ai'
import { describeError } from '../../util/describe-error.ts'

/** Words with which providers say a model takes no images (OpenAI, Anthropic, Google, Ollama, vLLM, llama.cpp). */
const refusalWords = /image|vision|multimodal|modalit|image_url|content type|does not support/i

/**
 * When a request that carried the step's screenshot is refused in a way that
 * names images, the clear message for the run's end: a model that cannot see
 * must stop the run at once, never carry on silently without the picture.
 * Undefined for any other failure.
 */
export function visionRefusal(error: unknown): string | undefined {
  const unsupported = UnsupportedFunctionalityError.isInstance(error)
  const refusedByProvider =
    APICallError.isInstance(error) &&
    error.statusCode !== undefined &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    ![401, 403, 408, 409, 429].includes(error.statusCode) &&
    refusalWords.test(`${error.responseBody ?? ''} ${error.message}`)
  if (!unsupported && !refusedByProvider) return undefined
  return `The model refused the step's screenshot, so it cannot run with vision: ${describeError(error)}. Use a model that accepts images, or turn vision off (vision: false, SEXTANT_VISION=off).`
}
