import type { ElementTarget, RecordedStep } from './schema.ts'
import { clickOptions, num } from './spec-options.ts'

/**
 * The Playwright lines of a coordinate step. One recorded on an element acts
 * at the same place in the element's box (`position`, relative to its
 * locator), wherever the element is now; one recorded over no element acts
 * at its raw point: screenshot pixels, the same as the viewport's while the
 * screenshot was not scaled down (viewports up to 1280 px wide).
 */
export function pointActionLines(
  step: RecordedStep,
  target: string | undefined,
  locate: (element: ElementTarget) => string,
): string[] {
  const input = step.input
  const offset = step.offset
  if (target && offset) {
    const box = [
      `const box = await ${target}.boundingBox()`,
      "if (!box) throw new Error('The element the point was on is not visible.')",
    ]
    const position = `{ x: box.width * ${offset.x}, y: box.height * ${offset.y} }`
    if (step.tool === 'click_at') {
      const options = clickOptions(input).replace(/^\{ (.*) \}$/, ', $1')
      return [...box, `await ${target}.click({ position: ${position}${options} })`]
    }
    if (step.tool === 'hover_at') return [...box, `await ${target}.hover({ position: ${position} })`]
    const drop = step.drop
    if (drop)
      return [
        ...box,
        `const drop = ${locate(drop.target)}`,
        'const dropBox = await drop.boundingBox()',
        "if (!dropBox) throw new Error('The element the drag ended on is not visible.')",
        `await ${target}.dragTo(drop, { sourcePosition: ${position}, targetPosition: { x: dropBox.width * ${drop.offset.x}, y: dropBox.height * ${drop.offset.y} }, steps: 20 })`,
      ]
    // The end was over no element: the drag keeps its recorded length and direction.
    const from = pointOf(input.from)
    const to = pointOf(input.to)
    return [
      `await ${target}.scrollIntoViewIfNeeded()`,
      ...box,
      `const x = box.x + box.width * ${offset.x}`,
      `const y = box.y + box.height * ${offset.y}`,
      'await page.mouse.move(x, y)',
      'await page.mouse.down()',
      `await page.mouse.move(x + ${to.x - from.x}, y + ${to.y - from.y}, { steps: 20 })`,
      'await page.mouse.up()',
    ]
  }
  if (step.tool === 'click_at')
    return [
      `await page.mouse.click(${num(input.x)}, ${num(input.y)}${clickOptions(input) ? `, ${clickOptions(input)}` : ''})`,
    ]
  if (step.tool === 'hover_at') return [`await page.mouse.move(${num(input.x)}, ${num(input.y)})`]
  const from = pointOf(input.from)
  const to = pointOf(input.to)
  return [
    `await page.mouse.move(${from.x}, ${from.y})`,
    'await page.mouse.down()',
    `await page.mouse.move(${to.x}, ${to.y}, { steps: 20 })`,
    'await page.mouse.up()',
  ]
}

function pointOf(value: unknown): { x: number; y: number } {
  const point = (value ?? {}) as Record<string, unknown>
  return { x: num(point.x), y: num(point.y) }
}
