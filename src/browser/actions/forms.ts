import type { Locator, Page } from 'playwright-core'
import { z } from 'zod'
import { onTarget } from '../../recording/action-descriptor.ts'
import { failed, ok } from '../../tool.ts'
import { quoteText } from '../../util/text.ts'
import type { BrowserToolSurface, ResolvedElement } from '../session/tool-surface.ts'
import { evaluateElement } from '../view/first-element.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

interface NativeOption {
  label: string
  value: string
}

/** Picks the options asked for: exact value, exact label, then case-insensitive label, then label containing it. */
export function matchOptions(
  wanted: string[],
  options: NativeOption[],
): { values: string[]; missing: string[] } {
  const values: string[] = []
  const missing: string[] = []
  for (const request of wanted) {
    const lower = request.trim().toLowerCase()
    const option =
      options.find((candidate) => candidate.value === request) ??
      options.find((candidate) => candidate.label === request) ??
      options.find((candidate) => candidate.label.trim().toLowerCase() === lower) ??
      options.find((candidate) => candidate.label.toLowerCase().includes(lower))
    if (option) values.push(option.value)
    else missing.push(request)
  }
  return { values, missing }
}

async function selectNative(found: ResolvedElement, wanted: string[], timeout: number, signal: AbortSignal) {
  const { locator, label } = found
  const options = await evaluateElement(
    found.element,
    (element) =>
      Array.from((element as HTMLSelectElement).options, (option) => ({
        label: option.label,
        value: option.value,
      })),
    undefined,
    signal,
  )
  const { values, missing } = matchOptions(wanted, options)
  if (missing.length > 0) {
    const available = options
      .slice(0, 30)
      .map((option) => quoteText(option.label, 40))
      .join(', ')
    return failed(
      `No option ${missing.map((text) => quoteText(text)).join(', ')} in ${label}. Its options: ${available}.`,
    )
  }
  const chosen = await locator.selectOption(values, { timeout, signal })
  const names = chosen.map((value) => options.find((option) => option.value === value)?.label ?? value)
  return ok(`Selected ${names.map((name) => quoteText(name)).join(', ')} in ${label}.`)
}

/** The visible option of an opened custom dropdown whose text matches, preferring an exact match. */
async function findOpenOption(page: Page, text: string): Promise<Locator | undefined> {
  for (const role of ['option', 'menuitem', 'menuitemradio', 'treeitem'] as const) {
    for (const exact of [true, false]) {
      const candidates = page.getByRole(role, { name: text, exact })
      const count = await candidates.count()
      for (let i = 0; i < count; i++) {
        const candidate = candidates.nth(i)
        if (await candidate.isVisible()) return candidate
      }
    }
  }
  const byText = page.getByText(text, { exact: true })
  const count = await byText.count()
  for (let i = 0; i < count; i++) if (await byText.nth(i).isVisible()) return byText.nth(i)
  return undefined
}

async function selectCustom(found: ResolvedElement, wanted: string[], timeout: number, signal: AbortSignal) {
  const { locator, label, page } = found
  const picked: string[] = []
  for (const text of wanted) {
    let option = await findOpenOption(page, text)
    if (!option) {
      await locator.click({ timeout, signal })
      option = await findOpenOption(page, text)
    }
    if (!option) {
      return failed(
        `Opened ${label} but found no option ${quoteText(text)}${picked.length ? ` (selected ${picked.join(', ')} before)` : ''}. The next page view shows what it offers.`,
      )
    }
    await option.click({ timeout, signal })
    picked.push(quoteText(text))
  }
  return ok(`Selected ${picked.join(', ')} in ${label}.`)
}

export const selectOptionAction: BrowserActionDescriptor = {
  name: 'select_option',
  description: 'Choose dropdown options by visible text or value (native or custom).',
  effect: 'destructive',
  docs: {
    input: '`{ ref, options: string[] }`',
    does: 'chooses options by visible text or value, in native and custom dropdowns',
  },
  stuck: 'changes',
  record: { element: 'required', outcome: true },
  playwright: onTarget((target, { input }) => [
    `await ${target}.selectOption(${JSON.stringify(input.options ?? [])})`,
  ]),
}

export function selectOptionTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: selectOptionAction,
    input: z.object({ ref: refInput, options: z.array(z.string()).min(1) }),
    target: ({ ref }) => ref,
    run: async ({ options }, ctx, found) => {
      const timeout = session.settings.actionTimeoutMs
      const isNative = await evaluateElement(
        found.element,
        (element) => element instanceof HTMLSelectElement,
        undefined,
        ctx.signal,
      )
      return isNative
        ? selectNative(found, options, timeout, ctx.signal)
        : selectCustom(found, options, timeout, ctx.signal)
    },
  })
}
