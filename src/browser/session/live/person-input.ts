import type { Page } from 'playwright-core'
import { z } from 'zod'
import { AbortError } from '../../../tool.ts'

/**
 * A person's input while they have taken over a run's browser, forwarded to
 * the active page: points are CSS pixels of the viewport, keys are named as
 * Playwright names them (`Enter`, `Control+A`). It goes through the run's own
 * context, so the run's network guard bounds whatever the person's input makes
 * the page load.
 */

const point = { x: z.number().finite(), y: z.number().finite() }

export const PersonInputSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('click'),
    ...point,
    button: z.enum(['left', 'right', 'middle']).optional(),
    count: z.number().int().min(1).max(3).optional(),
  }),
  z.object({ type: z.literal('move'), ...point }),
  z.object({
    type: z.literal('wheel'),
    ...point,
    dx: z.number().finite().min(-100_000).max(100_000),
    dy: z.number().finite().min(-100_000).max(100_000),
  }),
  z.object({ type: z.literal('type'), text: z.string().min(1).max(10_000) }),
  z.object({ type: z.literal('key'), key: z.string().min(1).max(100) }),
])

export type PersonInput = z.output<typeof PersonInputSchema>

/** The input cannot be applied as given (a point off the viewport, a key Playwright does not know): the sender's mistake. */
export class PersonInputError extends Error {
  override name = 'PersonInputError'
}

export async function applyPersonInput(page: Page, input: PersonInput, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new AbortError()
  if ('x' in input) await checkInViewport(page, input)
  switch (input.type) {
    case 'click':
      return page.mouse.click(input.x, input.y, {
        button: input.button ?? 'left',
        clickCount: input.count ?? 1,
      })
    case 'move':
      return page.mouse.move(input.x, input.y)
    case 'wheel':
      // Wheel events go to the element under the pointer: it is moved there first.
      await page.mouse.move(input.x, input.y)
      return page.mouse.wheel(input.dx, input.dy)
    case 'type':
      return page.keyboard.type(input.text)
    case 'key':
      return pressKey(page, input.key)
    default: {
      const unknownInput: never = input
      throw new PersonInputError(`Unknown input ${JSON.stringify(unknownInput)}`)
    }
  }
}

async function checkInViewport(page: Page, { x, y }: { x: number; y: number }): Promise<void> {
  // A browser reached over CDP may have no fixed viewport: the window's own size is the viewport then.
  const size =
    page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })))
  if (x < 0 || y < 0 || x >= size.width || y >= size.height)
    throw new PersonInputError(
      `The point (${x}, ${y}) is outside the viewport (${size.width}×${size.height} CSS pixels).`,
    )
}

async function pressKey(page: Page, key: string): Promise<void> {
  try {
    await page.keyboard.press(key)
  } catch (error) {
    // Playwright knows its key names and says so for any other; that is the sender's mistake, not the page's.
    if (error instanceof Error && /Unknown key/i.test(error.message))
      throw new PersonInputError(
        `Unknown key "${key}": use Playwright's key names (Enter, Escape, Control+A).`,
      )
    throw error
  }
}
