import type { ElementHandle, Frame, Locator, Page } from 'playwright-core'
import { z } from 'zod'
import { onTarget, stringField } from '../../recording/action-descriptor.ts'
import { namesSecret } from '../../secrets/secrets.ts'
import { failed, ok, type ToolResult } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import { quoteText } from '../../util/text.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { evaluateElement, evaluateFirst } from '../view/first-element.ts'
import { type DateKind, dateKinds, expectedFormat, toInputValue } from './date-input.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

interface FieldInfo {
  /**
   * The URL of the frame the field is in, as the browser reports it: where a
   * scoped secret is checked. Never read by page-side JavaScript, which a page
   * can lie to (a redefined `ownerDocument` or `location`).
   */
  url: string
  tag: string
  type: string
  editable: boolean
  disabled: boolean
  readOnly: boolean
}

/**
 * What the field is, and with `withUrl` the URL of its frame. Only a secret's
 * placeholder needs the URL, and asking the browser for the frame costs four
 * round trips more than reading the field: without one, the URL is left empty.
 */
async function fieldInfo(
  page: Page,
  element: ElementHandle,
  withUrl: boolean,
  signal: AbortSignal,
): Promise<FieldInfo> {
  if (!withUrl) return { url: '', ...(await evaluateElement(element, readField, undefined, signal)) }
  const [owner, facts] = await withDeadline(
    Promise.all([element.ownerFrame(), element.evaluate(readField)]),
    3000,
    signal,
    'field lookup',
  )
  return { url: frameUrl(page, owner), ...facts }
}

/**
 * The URL of the field's frame. Playwright finds the owning frame through the
 * element's `ownerDocument`, which a page can redefine: then it finds none
 * (a fake document has no frame), or only a frame the page could script
 * anyway (same origin, so same host). With none, a page of one frame is
 * still unambiguous; on a page of several the URL stays empty, which no
 * scoped secret matches.
 */
function frameUrl(page: Page, owner: Frame | null): string {
  if (owner) return owner.url()
  const frames = page.frames()
  return frames.length === 1 && frames[0] ? frames[0].url() : ''
}

/** Runs in the page: what the field is. Nothing here decides a security question (the page can lie). */
function readField(element: Element): Omit<FieldInfo, 'url'> {
  const field = element as HTMLInputElement
  return {
    tag: element.tagName.toLowerCase(),
    type: element instanceof HTMLInputElement ? field.type : '',
    editable: (element as HTMLElement).isContentEditable === true,
    disabled: field.disabled === true || element.getAttribute('aria-disabled') === 'true',
    readOnly: field.readOnly === true || element.getAttribute('aria-readonly') === 'true',
  }
}

/** What the field holds now, looked up afresh: a framework may have replaced it as the value went in. */
async function currentValue(locator: Locator, info: FieldInfo, signal: AbortSignal): Promise<string> {
  if (info.tag === 'input' || info.tag === 'textarea') return locator.inputValue({ timeout: 2000 })
  return evaluateFirst(locator, (element) => element.textContent ?? '', undefined, signal)
}

/** Puts the caret after the current content, so appended text lands at the end (End only reaches the line's end). */
function moveCaretToEnd(element: Element): void {
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    const end = element.value.length
    try {
      element.setSelectionRange(end, end)
    } catch {
      // Some input types (email, number) have no selection.
    }
    return
  }
  const selection = element.ownerDocument.getSelection()
  if (!selection) return
  const range = element.ownerDocument.createRange()
  range.selectNodeContents(element)
  range.collapse(false)
  selection.removeAllRanges()
  selection.addRange(range)
}

export const typeAction: BrowserActionDescriptor = {
  name: 'type',
  description:
    'Type into a field, replacing its content unless `clear: false`; `submit` presses Enter. Dates and times in any usual format.',
  effect: 'destructive',
  docs: {
    input: '`{ ref, text, submit?, clear? }`',
    does: 'types into a field, replacing its content unless `clear: false`; `submit` presses Enter; date and time fields take the usual formats',
  },
  stuck: 'changes',
  record: { element: 'required', outcome: true, typed: (input) => input.text },
  playwright: onTarget((target, { input }, { text }) => {
    const typing =
      input.clear === false
        ? `await ${target}.pressSequentially(${text(stringField(input, 'text'))})`
        : `await ${target}.fill(${text(stringField(input, 'text'))})`
    return input.submit === true ? [typing, `await ${target}.press('Enter')`] : [typing]
  }),
}

export function typeTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: typeAction,
    input: z.object({
      ref: refInput,
      text: z.string(),
      submit: z.boolean().optional(),
      clear: z.boolean().optional(),
    }),
    secretInput: 'text',
    target: ({ ref }) => ref,
    // Known before the call runs when the last page view showed the field as a password.
    maskInput: ({ ref }) => (session.fieldType(ref) === 'password' ? ['text'] : []),
    run: async ({ text, submit = false, clear = true }, ctx, found) => {
      const { page, locator, label } = found
      const info = await fieldInfo(
        page,
        found.element,
        ctx.secrets !== undefined && namesSecret(text),
        ctx.signal,
      )
      if (info.tag === 'select') return failed(`${label} is a dropdown: use select_option.`)
      if (info.disabled) return failed(`Could not type into ${label}: it is disabled.`)
      if (info.readOnly) return failed(`Could not type into ${label}: it is read-only.`)
      const options = { timeout: session.settings.actionTimeoutMs, signal: ctx.signal }
      const password = info.type === 'password'
      const masked = (result: ToolResult): ToolResult =>
        password ? { ...result, maskInput: ['text'] } : result

      // Placeholders become values only now, and only for the document the field is in.
      const revealed = ctx.secrets
        ? ctx.secrets.reveal(text, info.url)
        : { ok: true as const, text, names: [] }
      if (!revealed.ok) return failed(`Did not type into ${label}. ${revealed.reason}`)
      const secret = revealed.names.length > 0
      // Remembered before the value goes in: a fill that fails halfway may still have left some of it.
      if (secret && ctx.secrets) {
        session.secretFields.add(page, await locator.elementHandle({ timeout: 2000 }), ctx.secrets)
      }
      let value = revealed.text
      let converted = ''
      if (dateKinds.has(info.type)) {
        const kind = info.type as DateKind
        const accepted = toInputValue(kind, text)
        if (accepted === undefined) {
          return failed(
            `${label} is a ${kind} field and could not read ${quoteText(text)}; give ${expectedFormat[kind]}.`,
          )
        }
        if (accepted !== value.trim() && !secret) converted = ` (from ${quoteText(text)})`
        value = accepted
      }

      if (clear || dateKinds.has(info.type)) {
        await locator.fill(value, options)
      } else {
        await locator.focus(options)
        await evaluateElement(found.element, moveCaretToEnd, undefined, ctx.signal)
        await locator.pressSequentially(value, options)
      }

      const after = await currentValue(locator, info, ctx.signal).catch(() => undefined)
      if (value.length > 0 && after === '') {
        const hint = dateKinds.has(info.type) ? ` It expects ${expectedFormat[info.type as DateKind]}.` : ''
        return masked(
          failed(`Typed into ${label}, but the field stayed empty: it rejected the input.${hint}`),
        )
      }
      if (submit) await locator.press('Enter', options)
      // The result never holds a secret's value: the model reads what it wrote (the placeholder).
      const shown = password
        ? secret
          ? quoteText(text)
          : `${value.length} characters`
        : secret
          ? quoteText(text)
          : `${quoteText(value)}${converted}`
      const typed = masked(ok(`Typed ${shown} into ${label}${submit ? ' and pressed Enter' : ''}.`))
      return secret ? { ...typed, typedSecrets: revealed.names } : typed
    },
  })
}

const keyNames: Record<string, string> = {
  enter: 'Enter',
  return: 'Enter',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  space: 'Space',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  insert: 'Insert',
  ctrl: 'Control',
  control: 'Control',
  shift: 'Shift',
  alt: 'Alt',
  option: 'Alt',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  controlormeta: 'ControlOrMeta',
}

/** `ctrl+a` → `Control+a`, `escape` → `Escape`: the names models write, as Playwright spells them. */
export function normalizeKey(key: string): string {
  return key
    .trim()
    .split('+')
    .map((part) => {
      const trimmed = part.trim()
      const known = keyNames[trimmed.toLowerCase()]
      if (known) return known
      if (/^f\d{1,2}$/i.test(trimmed)) return trimmed.toUpperCase()
      return trimmed
    })
    .join('+')
}

export const pressKeyAction: BrowserActionDescriptor = {
  name: 'press_key',
  description: 'Press a key or combination, e.g. Enter, Escape, ArrowDown, Control+A.',
  effect: 'destructive',
  docs: {
    input: '`{ key }`',
    does: 'presses a key or combination in the active tab (Playwright names: `Enter`, `Escape`, `Control+A`)',
  },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  playwright: ({ input }, { text }) => [`await page.keyboard.press(${text(stringField(input, 'key'))})`],
}

export function pressKeyTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: pressKeyAction,
    input: z.object({ key: z.string().min(1) }),
    run: async ({ key }) => {
      const page = await session.activePage()
      const name = normalizeKey(key)
      try {
        await page.keyboard.press(name)
      } catch (error) {
        if (/Unknown key/i.test(describeError(error))) {
          return failed(
            `Unknown key ${quoteText(key)}. Use Playwright key names such as Enter, Escape, Tab, ArrowDown, Control+A.`,
          )
        }
        throw error
      }
      return ok(`Pressed ${name}.`)
    },
  })
}
