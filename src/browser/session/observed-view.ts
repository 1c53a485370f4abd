import type { Page } from 'playwright-core'
import type { Logger } from '../../log.ts'
import { AbortError, isAbortError } from '../../tool.ts'
import { firstLineOf } from '../../util/describe-error.ts'
import { buildPageView, estimateTokens, type PageView, type PageViewOptions } from '../view/page-view.ts'
import type { RefRegistry } from '../view/stable-refs.ts'

/** The view an observation shows; `failed` when it could not be built and says so instead. */
export type ObservedView = Omit<PageView, 'url'> & { failed: boolean }

/**
 * The page view of an observation. A view that cannot be built is a view
 * saying why, not a failed step: the model can still navigate away. An abort
 * stays an abort.
 */
export async function observedView(
  page: Page,
  registry: RefRegistry,
  options: PageViewOptions & { logger: Logger; runId: string },
  signal: AbortSignal,
): Promise<ObservedView> {
  try {
    return { ...(await buildPageView(page, registry, options, signal)), failed: false }
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw new AbortError()
    options.logger.warn({ err: error, runId: options.runId }, 'page view failed')
    const text = `URL: ${page.url()}\n(The page view could not be built: ${firstLineOf(error)})`
    return {
      text,
      title: '',
      refs: 0,
      tokens: estimateTokens(text),
      fingerprint: `error:${page.url()}`,
      failed: true,
    }
  }
}
