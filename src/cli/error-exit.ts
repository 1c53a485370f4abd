import { RunLimitError } from '../agent/run/run-limits.ts'
import { ConfigError } from '../config.ts'
import { ModelConfigError } from '../model/model-errors.ts'
import { PriceFileError } from '../model/prices.ts'
import { StoreUnavailableError } from '../store/store-errors.ts'
import { UsageError } from './help.ts'

/**
 * A command's error that the user caused, told on stderr in one line: its
 * exit status (2 for usage and configuration, 1 for a store that does not
 * answer), or undefined for any other error, which is a bug to report whole.
 */
export function userErrorExit(error: unknown): number | undefined {
  if (error instanceof UsageError || isParseArgsError(error)) {
    process.stderr.write(`sextant: ${(error as Error).message}\nRun "sextant --help" for usage.\n`)
    return 2
  }
  if (
    error instanceof ConfigError ||
    error instanceof ModelConfigError ||
    error instanceof PriceFileError ||
    // A run's limit that cannot be kept (a dollar cap on a model without a price), refused before it starts.
    error instanceof RunLimitError
  ) {
    process.stderr.write(`sextant: ${error.message}\n`)
    return 2
  }
  if (error instanceof StoreUnavailableError) {
    process.stderr.write(`sextant: ${error.message}\n`)
    return 1
  }
  return undefined
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
}
