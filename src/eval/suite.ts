import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { LineCounter, parseDocument } from 'yaml'
import { z } from 'zod'
import { JsonOutputSchema } from '../agent/output/output-schema.ts'
import { runRequestFields } from '../agent/run/run-request-fields.ts'
import { type LinearRegExp, linearRegExp, PatternError } from '../util/linear-regexp.ts'

/**
 * A task suite: tasks with checks that decide whether a run passed. Written
 * in YAML or JSON (JSON is read by the same parser, so both get line numbers
 * in their errors).
 */

const textOrTexts = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])

/** A regular expression as `pattern` or `/pattern/flags`. */
const pattern = z.string().min(1).superRefine(refinePattern)

/** One mapping of checks: every key present must hold. */
export const CheckSchema = z
  .strictObject({
    resultIncludes: textOrTexts.optional().describe('done.text contains each (case-insensitive)'),
    resultMatches: pattern.optional().describe('done.text matches'),
    urlMatches: pattern.optional().describe('the final URL matches'),
    pageIncludes: textOrTexts.optional().describe("the final page's readable text contains each"),
    js: z.string().min(1).optional().describe('an expression evaluated in the final page; must be true'),
    dataMatches: z
      .record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .superRefine((paths, ctx) => {
        for (const value of Object.values(paths)) if (isRegExpLiteral(value)) refinePattern(value, ctx)
      })
      .optional()
      .describe(
        "each path in done's data (`flights.0.price`) equals its value, or matches it when it is /regex/",
      ),
  })
  .refine((check) => Object.values(check).some((value) => value !== undefined), {
    message: 'needs at least one of resultIncludes, resultMatches, urlMatches, pageIncludes, js, dataMatches',
  })
export type Check = z.infer<typeof CheckSchema>

/** The run request's fields a task (or the suite's defaults) may set: the suite's view of the run request. */
const runSettings = {
  instructions: runRequestFields.instructions,
  maxTurns: runRequestFields.maxTurns,
  maxSessionTokens: runRequestFields.maxSessionTokens,
  maxCostUsd: runRequestFields.maxCostUsd,
  maxDurationMs: runRequestFields.maxDurationMs,
  allowedDomains: runRequestFields.allowedDomains,
  /** A saved browser profile the task's runs start from (RunOptions.profile). */
  profile: runRequestFields.profile,
  profileSave: runRequestFields.profileSave,
  proxy: runRequestFields.proxy,
  browser: runRequestFields.browser,
  artifacts: runRequestFields.artifacts,
  webhook: runRequestFields.webhook,
}

export const SuiteTaskSchema = z.strictObject({
  id: z.string().regex(/^[\w.-]+$/, 'letters, digits, ".", "-" and "_" only'),
  task: z.string().min(1),
  startUrl: z.string().min(1),
  ...runSettings,
  /** Secret name → the environment variable that holds its value (never written in the suite). */
  secrets: z.record(z.string().min(1), z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  /** `{{name}}` in the task and start URL is replaced by the value. */
  variables: z.record(z.string().regex(/^\w+$/), z.string()).optional(),
  /** A JSON Schema for the run's data (`done` must give data that matches it); `dataMatches` checks it. */
  output: JsonOutputSchema.optional(),
  check: CheckSchema,
})
export type SuiteTask = z.infer<typeof SuiteTaskSchema>

export const SuiteSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    /**
     * A folder of pages that `--serve-fixtures` serves on 127.0.0.1; `{{fixtures}}`
     * in start URLs, tasks and checks becomes its address. Relative to the suite
     * file, or `package:<name>/<path>` inside an installed npm package.
     */
    fixtures: z.string().min(1).optional(),
    defaults: z.strictObject(runSettings).optional(),
    tasks: z.array(SuiteTaskSchema).min(1),
  })
  .superRefine((suite, ctx) => {
    const seen = new Set<string>()
    suite.tasks.forEach((task, index) => {
      if (seen.has(task.id))
        ctx.addIssue({
          code: 'custom',
          message: `duplicate task id "${task.id}"`,
          path: ['tasks', index, 'id'],
        })
      seen.add(task.id)
    })
  })
export type Suite = z.infer<typeof SuiteSchema>

/** A suite file that cannot be used: every problem, each with its line. The CLI exits 2. */
export class SuiteError extends Error {
  override name = 'SuiteError'
  readonly problems: string[]
  constructor(source: string, problems: string[]) {
    super(`${source} is not a valid suite:\n${problems.map((problem) => `  ${problem}`).join('\n')}`)
    this.problems = problems
  }
}

export interface LoadedSuite {
  suite: Suite
  /** The file's path, or the label given for text. */
  source: string
  /** The fixtures folder, resolved (absent when the suite has none). */
  fixturesDir?: string
}

export function loadSuite(path: string): LoadedSuite {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new SuiteError(path, [`cannot read the file (${(error as NodeJS.ErrnoException).code})`])
  }
  const suite = parseSuite(text, path)
  const fixturesDir =
    suite.fixtures === undefined ? undefined : resolveFixtures(suite.fixtures, dirname(path))
  return { suite, source: path, ...(fixturesDir === undefined ? {} : { fixturesDir }) }
}

/** Parses and validates a suite's YAML or JSON text; `source` names it in errors. */
export function parseSuite(text: string, source = 'suite'): Suite {
  const lines = new LineCounter()
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false })
  if (document.errors.length > 0) {
    throw new SuiteError(
      source,
      document.errors.map(
        (error) => `line ${lines.linePos(error.pos[0]).line}: ${error.message.split('\n')[0]}`,
      ),
    )
  }
  const parsed = SuiteSchema.safeParse(document.toJS())
  if (parsed.success) return parsed.data
  throw new SuiteError(
    source,
    parsed.error.issues.map((issue) => {
      const line = lineOf(document, lines, issue.path as (string | number)[])
      const where = issue.path.length ? issue.path.join('.') : '(top level)'
      return `${line === undefined ? '' : `line ${line}: `}${where}: ${issue.message}`
    }),
  )
}

/** The line of the node at `path`, or of its nearest ancestor that exists (a missing key's mapping). */
function lineOf(
  document: ReturnType<typeof parseDocument>,
  lines: LineCounter,
  path: (string | number)[],
): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true)
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range
    if (range) return lines.linePos(range[0]).line
  }
  return undefined
}

function resolveFixtures(fixtures: string, suiteDir: string): string {
  if (!fixtures.startsWith('package:')) return resolve(suiteDir, fixtures)
  const [name, ...rest] = fixtures.slice('package:'.length).split('/')
  const scoped = name?.startsWith('@') ? `${name}/${rest.shift() ?? ''}` : (name ?? '')
  const packageJson = import.meta.resolve(`${scoped}/package.json`)
  return resolve(dirname(new URL(packageJson).pathname), ...rest)
}

/**
 * `/pattern/flags` or a bare pattern → a linear-time pattern (RE2): a caller's
 * check cannot stall the server. Throws PatternError naming a pattern the
 * engine cannot run (backreferences, lookaround).
 */
export function toRegExp(source: string): LinearRegExp {
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(source)
  return literal ? linearRegExp(literal[1] ?? '', literal[2]) : linearRegExp(source)
}

/** A `dataMatches` value written `/pattern/flags`, which matches rather than equals. */
export function isRegExpLiteral(value: unknown): value is string {
  return typeof value === 'string' && /^\/.*\/[dgimsuvy]*$/s.test(value) && value.length > 1
}

/** Why `source` cannot be a check's pattern (the engine's own words, naming it), or undefined. */
function patternProblem(source: string): string | undefined {
  try {
    toRegExp(source)
    return undefined
  } catch (error) {
    if (error instanceof PatternError) return error.message
    throw error
  }
}

function refinePattern(source: string, ctx: z.RefinementCtx): void {
  const problem = patternProblem(source)
  if (problem) ctx.addIssue({ code: 'custom', message: problem })
}
