import { type ActionRegistry, notExported } from './action-descriptor.ts'
import type { ElementTarget, Expectation, RecordedStep, Recording } from './schema.ts'
import { specIdentifiers } from './spec-identifiers.ts'
import { type SpecText, specText } from './spec-secrets.ts'
import { oneLine, quote } from './spec-text.ts'

/**
 * A recording as a `@playwright/test` spec a team can keep in CI: role
 * locators scoped by their context, one `test.step` per recorded step (its
 * comment the model's goal), the expectations as `expect(…)`, the variables
 * as parameters at the top and the secrets the run typed read from
 * `process.env` where it typed them (spec-secrets.ts).
 */

export interface PlaywrightExportOptions {
  /** Chromium to launch (`launchOptions.executablePath`); Playwright's own browser when absent. */
  executablePath?: string
}

/** The spec of `recording`, each step's lines written by its action's descriptor in `actions`. */
export function specOf(
  recording: Recording,
  actions: ActionRegistry,
  options: PlaywrightExportOptions = {},
): string {
  const identifier = specIdentifiers()
  const spec = specText(recording, identifier)
  const text = spec.text
  const lines: string[] = [
    "import { expect, test } from '@playwright/test'",
    '',
    `// Exported by Sextant from ${recording.runId ? `run ${recording.runId}` : 'a recording'}.`,
    '',
    "// Parameters: the recording's variables (an environment variable of the same name overrides each).",
  ]
  for (const [name, value] of Object.entries(recording.variables ?? {}))
    lines.push(`const ${identifier(name)} = process.env[${quote(name)}] ?? ${quote(value)}`)
  lines.push(`const startUrl = process.env.START_URL ?? ${quote(recording.startUrl ?? 'about:blank')}`)
  lines.push(
    '',
    '/** A secret the recording typed, read from the environment: never written in the spec. */',
    'function secret(name: string): string {',
    '  const value = process.env[name]',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this is the generated spec's own template string.
    '  if (value === undefined) throw new Error(`Set the environment variable ${name} (a secret the test types).`)',
    '  return value',
    '}',
    '',
    "/** A recorded URL on the recorded start page's origin, moved to the start URL's. */",
    'function at(url: string): string {',
    `  const recorded = ${quote(originOf(recording.startUrl) ?? '')}`,
    '  return recorded && url.startsWith(recorded) ? new URL(url.slice(recorded.length), startUrl).href : url',
    '}',
    '',
  )
  if (options.executablePath)
    lines.push(`test.use({ launchOptions: { executablePath: ${quote(options.executablePath)} } })`, '')
  lines.push(`test(${text(firstLine(recording.task))}, async ({ page }) => {`, '  await page.goto(startUrl)')
  recording.steps.forEach((step, index) => {
    lines.push(...stepLines(step, index, spec, actions).map((line) => `  ${line}`))
  })
  // A replay reads the data with a model; a Playwright test has none, so it only says so.
  if (recording.output)
    lines.push(
      "  // The run's data (its output schema) is not extracted here: `sextant replay` reads it with a model.",
    )
  lines.push('})', '')
  return lines.join('\n')
}

function stepLines(step: RecordedStep, index: number, spec: SpecText, actions: ActionRegistry): string[] {
  const { text } = spec
  const title = `${index + 1}. ${step.goal ?? `${step.tool}${step.target ? ` ${step.target.role} ${step.target.name}` : ''}`}`
  if (step.skip !== undefined)
    return [
      `// ${oneLine(title)} — skipped (${step.skip}): ${step.tool} ${oneLine(JSON.stringify(step.input))}`,
    ]
  const body: string[] = []
  if (step.goal) body.push(`// ${oneLine(step.goal)}`)
  const target = step.target ? locator(step.target, text) : undefined
  if (target) body.push(`const target = ${target}`)
  const lines = {
    target: target ? 'target' : undefined,
    text,
    locate: (element: ElementTarget) => locator(element, text),
  }
  // Only the action's own input reads back a secret, and only where the run typed it.
  body.push(...(actions.get(step.tool)?.playwright(spec.typed(step), lines) ?? notExported(step)))
  for (const expectation of step.expect ?? [])
    body.push(expectLine(expectation, target ? 'target' : undefined, text))
  return [`await test.step(${text(oneLine(title))}, async () => {`, ...body.map((line) => `  ${line}`), '})']
}

function expectLine(
  expectation: Expectation,
  target: string | undefined,
  text: (value: string) => string,
): string {
  switch (expectation.kind) {
    case 'url':
      return `await expect(page).toHaveURL(at(${text(expectation.url)}))`
    case 'appeared':
      return `await expect(page.getByText(${text(expectation.text)}).first()).toBeVisible()`
    case 'gone':
      return target ? `await expect(${target}).toBeHidden()` : '// (the target is gone)'
    case 'value':
      return target
        ? `await expect(${target}).toHaveValue(${text(expectation.value)})`
        : '// (the field holds the value)'
    default: {
      const unknown: never = expectation
      throw new Error(`Unknown expectation ${JSON.stringify(unknown)}`)
    }
  }
}

const namedByText = new Set(['paragraph', 'listitem', 'generic', 'blockquote', 'code', 'emphasis', 'strong'])

/** Container roles Playwright matches by role; others are reached by their tag. */
const containerTags: Record<string, string> = { form: 'form' }

/**
 * `page.getByRole('listitem').filter({ hasText: 'Buy milk' }).getByRole('checkbox')`:
 * role and name, scoped by the context (outermost first); the tag and
 * attributes only when role and name cannot say which element it is.
 */
export function locator(
  target: ElementTarget,
  text: (value: string) => string = (value) => quote(value),
): string {
  let scope = 'page'
  for (const frame of target.frame ?? []) {
    const selector = /^[\w-]+$/.test(frame)
      ? `iframe[name="${frame}"]`
      : `iframe[src="${frame.replace(/"/g, '\\"')}"]`
    scope += `.frameLocator(${quote(selector)})`
  }
  for (const context of [...(target.context ?? [])].reverse()) {
    const container = containerTags[context.role]
      ? `locator(${quote(containerTags[context.role] ?? '')})`
      : `getByRole(${quote(context.role)})`
    // Generic wrappers nest: the innermost holding the label is the last of them in document order.
    const innermost = context.role === 'generic' ? '.last()' : ''
    scope += `.${container}.filter({ hasText: ${text(domText(context.label))} })${innermost}`
  }
  // These roles take no name from their content in ARIA: what the view calls their name is their text.
  if (target.name && namedByText.has(target.role))
    return `${scope}.getByRole(${quote(target.role)}).filter({ hasText: ${text(target.name)} }).first()`
  if (target.name)
    return `${scope}.getByRole(${quote(target.role)}, { name: ${text(target.name)}, exact: true })`
  const attributes = target.attributes ?? {}
  if (!target.context?.length) {
    if (attributes['data-testid']) return `${scope}.getByTestId(${text(attributes['data-testid'])})`
    if (attributes.id) return `${scope}.locator(${quote(`[id="${attributes.id}"]`)})`
    if (attributes.name && target.tag)
      return `${scope}.locator(${quote(`${target.tag}[name="${attributes.name}"]`)})`
    if (attributes.label) return `${scope}.getByLabel(${text(attributes.label)}, { exact: true })`
  }
  return `${scope}.getByRole(${quote(target.role)})`
}

/**
 * A context's label as the DOM's text has it: the page view also reads the
 * icons CSS draws (`✖`, `»`), which `hasText` does not see, so words without
 * a letter or digit are left out.
 */
function domText(label: string): string {
  const words = label.split(' ').filter((word) => /[\p{L}\p{N}]/u.test(word))
  return words.length > 0 ? words.join(' ') : label
}

function firstLine(text: string): string {
  return oneLine(text.split('\n')[0] ?? text) || 'recorded flow'
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).origin : undefined
  } catch {
    return undefined
  }
}
