import { ElementTargetSchema } from '../events/call-schemas.ts'
import { selectTextInPage } from '../util/select-text-in-page.ts'
import { pointActionLines } from './point-actions.ts'
import type { ElementTarget, RecordedStep } from './schema.ts'
import { clickOptions, num } from './spec-options.ts'
import { oneLine, quote } from './spec-text.ts'

/**
 * The Playwright lines of one recorded call: the locator of its target is
 * already in `target` (a variable of the step), text goes through `text` so
 * variables and secrets stay parameters.
 */

export function actionLines(
  step: RecordedStep,
  target: string | undefined,
  text: (value: string) => string,
  /** The locator of another element the step names (a drag's drop element). */
  locate: (element: ElementTarget) => string,
): string[] {
  const input = step.input
  const string = (key: string) => (typeof input[key] === 'string' ? input[key] : '')
  switch (step.tool) {
    case 'click':
      if (!target) break
      return [`await ${target}.click(${clickOptions(input)})`]
    case 'set_value':
      if (!target) break
      if (step.target?.role === 'slider' && step.target.tag !== 'input')
        return ariaSliderLines(target, input.value)
      // Playwright fills range and colour inputs natively.
      return [`await ${target}.fill(${text(String(input.value ?? ''))})`]
    case 'select_text':
      return [
        `await ${target ?? "page.locator('body')"}.evaluate(${quote(`(${selectTextInPage.toString()})`)}, ${text(string('text'))})`,
      ]
    case 'drag':
      if (!target) break
      return dragLines(target, input, locate)
    case 'click_at':
    case 'hover_at':
    case 'drag_at':
      return pointActionLines(step, target, locate)
    case 'type': {
      if (!target) break
      const typing =
        input.clear === false
          ? `await ${target}.pressSequentially(${text(string('text'))})`
          : `await ${target}.fill(${text(string('text'))})`
      return input.submit === true ? [typing, `await ${target}.press('Enter')`] : [typing]
    }
    case 'select_option':
      if (!target) break
      return [`await ${target}.selectOption(${JSON.stringify(input.options ?? [])})`]
    case 'hover':
      if (!target) break
      return [`await ${target}.hover()`]
    case 'upload_file':
      if (!target) break
      return [`await ${target}.setInputFiles(${JSON.stringify(input.paths ?? [])})`]
    case 'press_key':
      return [`await page.keyboard.press(${text(string('key'))})`]
    case 'navigate':
      return [`await page.goto(at(${text(string('url'))}))`]
    case 'go_back':
      return ['await page.goBack()']
    case 'go_forward':
      return ['await page.goForward()']
    case 'reload':
      return ['await page.reload()']
    case 'scroll': {
      const pages = typeof input.pages === 'number' ? input.pages : 1
      const sign = input.direction === 'up' || input.direction === 'left' ? -1 : 1
      const horizontal = input.direction === 'left' || input.direction === 'right'
      const delta = Math.round(sign * pages * 600)
      const wheel = `await page.mouse.wheel(${horizontal ? delta : 0}, ${horizontal ? 0 : delta})`
      // A scrollable container scrolls under the mouse: the wheel turns over it.
      return target ? [`await ${target}.hover()`, wheel] : [wheel]
    }
    case 'wait':
      return [`await page.waitForTimeout(${Math.round(Number(input.seconds ?? 1) * 1000)})`]
    case 'done':
      return [`// The run's result: ${oneLine(string('text'))}`]
    case 'hand_over':
      // A person did this step in the run: the test stops for one too (headed, or under --debug).
      return [`// A person takes over here: ${oneLine(string('reason'))}`, 'await page.pause()']
    default:
      break
  }
  return [`// ${step.tool} is not exported: ${oneLine(JSON.stringify(input))}`]
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

/**
 * A drag as the action does it: press on the element's centre, move in
 * steps to the drop element's centre or by the offset, release.
 */
function dragLines(
  target: string,
  input: Record<string, unknown>,
  locate: (element: ElementTarget) => string,
): string[] {
  const by = input.by as { x?: unknown; y?: unknown } | undefined
  const onto = ElementTargetSchema.safeParse(input.to)
  let end: string[]
  if (onto.success)
    end = [
      `const drop = await ${locate(onto.data)}.boundingBox()`,
      "if (!drop) throw new Error('The drop element is not visible.')",
      'await page.mouse.move(drop.x + drop.width / 2, drop.y + drop.height / 2, { steps: 20 })',
    ]
  else if (typeof by?.x === 'number' && typeof by.y === 'number')
    end = [`await page.mouse.move(x + ${by.x}, y + ${by.y}, { steps: 20 })`]
  else return [`// drag is not exported: ${oneLine(JSON.stringify(input))}`]
  return [
    `const box = await ${target}.boundingBox()`,
    "if (!box) throw new Error('The dragged element is not visible.')",
    'const x = box.x + box.width / 2',
    'const y = box.y + box.height / 2',
    'await page.mouse.move(x, y)',
    'await page.mouse.down()',
    ...end,
    'await page.mouse.up()',
  ]
}
