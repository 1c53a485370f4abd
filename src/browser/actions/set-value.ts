import type { Page } from 'playwright-core'
import { z } from 'zod'
import { onTarget } from '../../recording/action-descriptor.ts'
import { num } from '../../recording/spec-options.ts'
import { quote } from '../../recording/spec-text.ts'
import { failed, ok, type ToolResult } from '../../tool.ts'
import { quoteText } from '../../util/text.ts'
import type { ActionTarget, BrowserToolSurface, ResolvedElement } from '../session/tool-surface.ts'
import { evaluateElement } from '../view/first-element.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

/**
 * Sets a control `type` cannot fill: a slider (a range input or an ARIA
 * `slider`) is moved with the keys a person would press, after a click near
 * the value when it is far, so the page's own input, change and key handlers
 * run; a colour (and any other input Playwright fills natively) is filled.
 */

interface SliderState {
  kind: 'range' | 'aria' | 'other'
  value: number
  min: number
  max: number
  step: number
  vertical: boolean
}

/** Presses at most this many arrows: a slider that needs more moves too little per key to be worth it. */
const maxPresses = 400

function readSlider(element: Element): SliderState {
  const number = (text: string | null, fallback: number) => {
    const parsed = Number.parseFloat(text ?? '')
    return Number.isFinite(parsed) ? parsed : fallback
  }
  if (element instanceof HTMLInputElement && element.type === 'range') {
    const style = getComputedStyle(element)
    return {
      kind: 'range',
      value: number(element.value, 0),
      min: number(element.min, 0),
      max: number(element.max, 100),
      step: element.step === 'any' ? 0 : number(element.step, 1),
      vertical: style.writingMode.startsWith('vertical') || style.appearance === 'slider-vertical',
    }
  }
  if (element.getAttribute('role') === 'slider')
    return {
      kind: 'aria',
      value: number(element.getAttribute('aria-valuenow'), Number.NaN),
      min: number(element.getAttribute('aria-valuemin'), 0),
      max: number(element.getAttribute('aria-valuemax'), 100),
      step: 0,
      vertical: element.getAttribute('aria-orientation') === 'vertical',
    }
  return { kind: 'other', value: 0, min: 0, max: 0, step: 0, vertical: false }
}

export const setValueAction: BrowserActionDescriptor = {
  name: 'set_value',
  description: 'Set a slider to a number, or a colour (#rrggbb) or other control `type` cannot fill.',
  effect: 'destructive',
  docs: {
    input: '`{ ref, value: number \\| string }`',
    does: 'sets a slider (range input or ARIA `slider`) or a colour, or another control `type` cannot fill, with real input',
  },
  stuck: 'changes',
  record: { element: 'required', outcome: true },
  playwright: onTarget((target, step, { text }) =>
    step.target?.role === 'slider' && step.target.tag !== 'input'
      ? ariaSliderLines(target, step.input.value)
      : // Playwright fills range and colour inputs natively.
        [`await ${target}.fill(${text(String(step.input.value ?? ''))})`],
  ),
}

export function setValueTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: setValueAction,
    input: z.object({ ref: refInput, value: z.union([z.number(), z.string().min(1)]) }),
    target: ({ ref }) => ref,
    run: async ({ value }, ctx, found) => {
      const target = found.handle ?? found.locator
      const state = await evaluateElement(found.element, readSlider, undefined, ctx.signal)
      if (state.kind === 'other') {
        await found.locator.fill(String(value), {
          timeout: session.settings.actionTimeoutMs,
          signal: ctx.signal,
        })
        const now = await found.locator.inputValue({ timeout: 2000 })
        return ok(`Set ${found.label} to ${quoteText(now)}.`)
      }
      const wanted = typeof value === 'number' ? value : Number.parseFloat(value)
      if (!Number.isFinite(wanted))
        return failed(`${found.label} is a slider: give a number, not ${quoteText(String(value))}.`)
      if (wanted < state.min || wanted > state.max)
        return failed(`${found.label} goes from ${state.min} to ${state.max}; ${wanted} is outside.`)
      return moveSlider(found, target, state, wanted, ctx.signal, session.settings.actionTimeoutMs)
    },
  })
}

async function moveSlider(
  found: ResolvedElement,
  target: ActionTarget,
  start: SliderState,
  wanted: number,
  signal: AbortSignal,
  timeout: number,
): Promise<ToolResult> {
  const { page } = found
  const read = () => evaluateElement(found.element, readSlider, undefined, signal)
  let state = start
  // Far from the value: a click on the track where the value lies, as a person would start.
  if (
    start.kind === 'range' &&
    !start.vertical &&
    start.step > 0 &&
    Math.abs(wanted - start.value) / start.step > 20
  ) {
    await clickTrack(page, target, start, wanted, signal, timeout)
    state = await read()
  } else {
    await target.focus()
  }
  const up = start.vertical ? 'ArrowUp' : 'ArrowRight'
  const down = start.vertical ? 'ArrowDown' : 'ArrowLeft'
  for (let presses = 0; presses < maxPresses && Number.isFinite(state.value); presses++) {
    if (state.value === wanted || signal.aborted) break
    const rising = wanted > state.value
    const before = state.value
    await page.keyboard.press(rising ? up : down)
    state = await read()
    if (state.value === before) break
    if (rising !== wanted > state.value && state.value !== wanted) {
      // The steps do not land on the value: the nearer of the two sides is kept.
      if (Math.abs(state.value - wanted) > Math.abs(before - wanted)) {
        await page.keyboard.press(rising ? down : up)
        state = await read()
      }
      break
    }
  }
  if (!Number.isFinite(state.value))
    return failed(`${found.label} does not say its value (no aria-valuenow).`)
  if (state.value === wanted) return ok(`Set ${found.label} to ${state.value}.`)
  return ok(`Set ${found.label} to ${state.value}, the nearest to ${wanted} its steps allow.`)
}

/** Clicks the track at the point that stands for `wanted` (the thumb's width taken from both ends). */
async function clickTrack(
  page: Page,
  target: ActionTarget,
  state: SliderState,
  wanted: number,
  signal: AbortSignal,
  timeout: number,
): Promise<void> {
  await target.scrollIntoViewIfNeeded({ timeout })
  const box = await target.boundingBox()
  if (!box || state.max <= state.min) return
  // Chromium's default thumb is about as wide as the track is high, capped: its centre never reaches the ends.
  const thumb = Math.min(box.height, 16)
  const fraction = (wanted - state.min) / (state.max - state.min)
  const x = box.x + thumb / 2 + fraction * (box.width - thumb)
  if (signal.aborted) return
  await page.mouse.click(x, box.y + box.height / 2)
}

/** An ARIA slider has no value to fill: its arrow keys move it, as the action moved it. */
function ariaSliderLines(target: string, value: unknown): string[] {
  const wanted = num(typeof value === 'string' ? Number.parseFloat(value) : value)
  const now = `Number(await ${target}.getAttribute('aria-valuenow'))`
  return [
    `for (let i = 0; i < 400 && ${now} < ${wanted}; i++) await ${target}.press('ArrowRight')`,
    `for (let i = 0; i < 400 && ${now} > ${wanted}; i++) await ${target}.press('ArrowLeft')`,
    `await expect(${target}).toHaveAttribute('aria-valuenow', ${quote(String(wanted))})`,
  ]
}
