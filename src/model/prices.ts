import { readFileSync } from 'node:fs'
import { z } from 'zod'
import type { Usage } from '../events/events.ts'
import shipped from './prices.json' with { type: 'json' }

/** A model's prices in USD per million tokens. Cache prices default to the input price when absent. */
export const ModelPriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
})
export type ModelPrice = z.infer<typeof ModelPriceSchema>

/** A price file: the shipped `prices.json`, or the one SEXTANT_PRICES names, which extends and overrides it. */
export const PriceFileSchema = z.object({
  takenAt: z.string().optional(),
  source: z.string().optional(),
  unit: z.literal('USD per million tokens').optional(),
  models: z.record(z.string().min(1), ModelPriceSchema),
})

export interface PriceTable {
  /** When the shipped prices were taken (YYYY-MM-DD), and where from. */
  takenAt: string
  source: string
  /** Keyed by "provider/model", lower case. */
  models: ReadonlyMap<string, ModelPrice>
}

/** A price file that cannot be used: the CLI exits 2 and the server does not start. */
export class PriceFileError extends Error {
  override name = 'PriceFileError'
}

/** The prices shipped with Sextant, extended and overridden by `overridePath` (SEXTANT_PRICES) when given. */
export function loadPriceTable(overridePath?: string): PriceTable {
  const base = PriceFileSchema.parse(shipped)
  const models = new Map<string, ModelPrice>()
  for (const [name, price] of Object.entries(base.models)) models.set(name.toLowerCase(), price)
  let source = base.source ?? 'prices.json'
  if (overridePath !== undefined) {
    for (const [name, price] of Object.entries(readPriceFile(overridePath).models)) {
      models.set(name.toLowerCase(), price)
    }
    source += ` + ${overridePath}`
  }
  return { takenAt: base.takenAt ?? 'unknown', source, models }
}

function readPriceFile(path: string): z.infer<typeof PriceFileSchema> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new PriceFileError(`SEXTANT_PRICES: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new PriceFileError(`SEXTANT_PRICES: ${path} is not JSON: ${(error as Error).message}`)
  }
  const parsed = PriceFileSchema.safeParse(json)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
  throw new PriceFileError(
    `SEXTANT_PRICES: ${path} is not a price file ({ "models": { "provider/model": { "input": 0.4, "output": 1.6 } } }, USD per million tokens): ${problems.join('; ')}`,
  )
}

/**
 * The price of "provider/model": the exact name, else the name without a
 * dated snapshot suffix ("claude-sonnet-4-5-20250929" → "claude-sonnet-4-5",
 * "gpt-4o-2024-08-06" → "gpt-4o"). Nothing looser: a wrong price is worse than
 * none.
 */
export function findPrice(modelName: string, table: PriceTable): ModelPrice | undefined {
  const name = modelName.trim().toLowerCase()
  const exact = table.models.get(name)
  if (exact) return exact
  const undated = name.replace(/(-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8}|-latest)$/, '')
  return undated === name ? undefined : table.models.get(undated)
}

/**
 * What `usage` cost at `price`, in USD; null when the price is unknown.
 * Cached input is billed at the cache-read price, cache writes at the
 * cache-write price; the rest of the input at the input price.
 */
export function costOf(usage: Usage, price: ModelPrice | undefined): number | null {
  if (!price) return null
  const cached = usage.cachedInputTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  const uncached = Math.max(0, usage.inputTokens - cached - written)
  const micro =
    uncached * price.input +
    cached * (price.cacheRead ?? price.input) +
    written * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output
  return micro / 1_000_000
}
