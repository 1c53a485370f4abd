import type { Page } from 'playwright-core'
import type { z } from 'zod'
import type { ActionDescriptor } from '../../recording/action-descriptor.ts'
import { placeholderOutside } from '../../secrets/secrets.ts'
import {
  AbortError,
  defineTool,
  failed,
  isAbortError,
  ok,
  type Tool,
  type ToolContext,
  type ToolEffect,
  type ToolResult,
} from '../../tool.ts'
import { truncate } from '../../util/text.ts'
import { defaultMaxTextChars } from '../session/bounds.ts'
import type { BrowserToolSurface, ResolvedElement } from '../session/tool-surface.ts'
import { explainFailure } from './explain-failure.ts'
import { revealByHover } from './hover-reveal.ts'

/**
 * The shared frame of every browser action: resolve the element it names, run
 * with the run's signal, turn a page-level failure into a failed result the
 * model reads (an abort stays an AbortError for the loop), and settle a page
 * the action loaded before saying where it arrived. An action waits for a
 * screenshot of the page asked for before it, and says when it ended.
 */

/** An action that loaded a page: the frame settles it, then answers "<verb> <url> ("<title>")". */
export interface Arrival {
  arrivedIn: Page
  verb: string
}

export function arrival(page: Page, verb: string): Arrival {
  return { arrivedIn: page, verb }
}

export function isArrival(outcome: ToolResult | Arrival): outcome is Arrival {
  return 'arrivedIn' in outcome
}

/** A browser action's descriptor: every browser action declares its effect. */
export type BrowserActionDescriptor = ActionDescriptor & { effect: ToolEffect }

/** The element an action receives: always there when the action's ref is required, maybe when it is optional. */
type ElementFor<Ref> = [Ref] extends [string] ? ResolvedElement : ResolvedElement | undefined

export interface BrowserToolDefinition<Schema extends z.ZodType, Ref extends string | undefined> {
  /** Its name, description and effect, and what the rest of Sextant needs of it. */
  action: BrowserActionDescriptor
  input: Schema
  requiresConfirmation?: boolean | ((input: z.output<Schema>) => boolean)
  maskInput?: (input: z.output<Schema>) => string[]
  /** The input field a secret placeholder may be typed through; anywhere else one is refused (see tool.ts). */
  secretInput?: string
  /** The ref of the element the action works on; a ref that no longer resolves fails the call. */
  target?: (input: z.output<Schema>) => Ref
  run(input: z.output<Schema>, ctx: ToolContext, element: ElementFor<Ref>): Promise<ToolResult | Arrival>
}

export function defineBrowserTool<Schema extends z.ZodType, Ref extends string | undefined = undefined>(
  surface: BrowserToolSurface,
  definition: BrowserToolDefinition<Schema, Ref>,
): Tool<z.output<Schema>> {
  const { target, run, action, ...contract } = definition
  return defineTool({
    ...contract,
    name: action.name,
    description: action.description,
    effect: action.effect,
    execute: async (input, ctx) => {
      if (ctx.signal.aborted) throw new AbortError()
      // Before anything runs, for model calls and replayed ones alike: a placeholder is never expanded elsewhere.
      const misplaced = placeholderOutside(input, contract.secretInput)
      if (misplaced !== undefined) return failed(misplacedSecret(action.name, misplaced))
      await surface.beforeAction(ctx.signal)
      try {
        const ref = target?.(input)
        let element: ResolvedElement | undefined
        if (ref !== undefined) {
          const found = await surface.resolve(ref, ctx.signal)
          if (typeof found === 'string') return failed(found)
          element = found
        }
        let outcome: ToolResult | Arrival
        try {
          // Shown only while its row is hovered: the row is hovered first, whatever the action.
          const hidden =
            element && (await revealByHover(element, surface.settings.actionTimeoutMs, ctx.signal))
          if (hidden) return failed(hidden)
          // With a required ref, `element` was resolved just above; with none or an optional one it may be absent.
          outcome = await run(input, ctx, element as ElementFor<Ref>)
        } finally {
          // The scan's handle of a marked element is the element itself: one disposal lets both go.
          void element?.element.dispose().catch(() => {})
          void element?.revealer?.dispose().catch(() => {})
        }
        return isArrival(outcome) ? await describeArrival(surface, outcome, ctx.signal) : outcome
      } catch (error) {
        if (ctx.signal.aborted || isAbortError(error)) throw new AbortError()
        return failed(explainFailure(error))
      } finally {
        surface.afterAction()
      }
    },
  })
}

function misplacedSecret(tool: string, field: string): string {
  return `Refused: ${tool}'s ${field} holds a secret placeholder (<secret>…</secret>). A secret is only ever typed into a field with \`type\`; it is never put in a URL, a script or any other input, and is not expanded there.`
}

/** Waits (bounded) for the page the action loaded, then says where it is now. */
async function describeArrival(
  surface: BrowserToolSurface,
  { arrivedIn: page, verb }: Arrival,
  signal: AbortSignal,
): Promise<ToolResult> {
  const settled = await surface.settle(page, signal)
  const title = await page.title().catch(() => '')
  // A page's URL can be megabytes long (history.replaceState): the result names it, cut.
  const url = truncate(page.url(), defaultMaxTextChars)
  const where = title ? `${url} ("${truncate(title, 80)}")` : url
  return ok(`${verb} ${where}${settled ? '' : '; the page is still loading'}.`)
}
