import type { AgentEvent } from '../../../events/events.ts'
import type { ViewerCommon } from './common.ts'
import type { EventRenderers } from './event-renderers.ts'
import type { RunPageParts } from './run-parts.ts'

/**
 * Browser code of a run's page: follows the run's events live (or replays a
 * finished run) into a step timeline, shows its browser live while it runs,
 * and offers its controls: approve or deny a confirmation, answer a question,
 * take over the browser, abort. Served as source text (see
 * assets.ts): it must stay self-contained, and reaches the shared helpers
 * through `common` and its other pieces through `parts`.
 */
export function runPage(common: ViewerCommon, parts: RunPageParts): void {
  const runId = document.body.dataset.runId ?? ''
  const base = `/v1/runs/${encodeURIComponent(runId)}`
  const header = parts.runHeader(common, base)
  const files = parts.runFiles(common, base, runId)
  const timeline = parts.runTimeline(common)
  const live = parts.liveView(common, base)
  const page = { common, base, header, timeline }
  const takeover = parts.takeoverControls(page)
  const renderers: EventRenderers = {
    ...parts.stepEvents(page),
    ...parts.callEvents(page),
    ...parts.replyEvents(page),
    ...parts.noteEvents(page),
    ...takeover.renderers,
    run_started: (event) => {
      const profile = document.getElementById('run-profile')
      if (profile && event.profile !== undefined) {
        profile.textContent = `Profile ${event.profile}`
        profile.hidden = false
      }
      const browser = document.getElementById('run-browser')
      if (browser && event.browser !== undefined) {
        browser.textContent = `Browser: ${describeBrowser(event.browser)}`
        browser.hidden = false
      }
      const instructions = document.getElementById('run-instructions')
      const text = instructions?.querySelector('pre')
      if (instructions && text && event.instructions !== undefined) {
        text.textContent = event.instructions
        instructions.hidden = false
      }
    },
    done: (event) => {
      if (event.parentRunId === undefined) live.stop()
      header.finish(event)
      takeover.finish()
      timeline.pending.replaceChildren()
      void header.load().catch(() => {})
      if (event.parentRunId === undefined) void files.load().catch(() => {})
    },
  }

  /** The context a run was given, one short phrase per setting (init scripts by count: they can be long). */
  function describeBrowser(settings: Record<string, unknown>): string {
    const phrase = (key: string, value: unknown): string => {
      if (key === 'initScripts' && Array.isArray(value)) return `${value.length} init script(s)`
      if (key === 'viewport' && typeof value === 'object' && value !== null) {
        const size = value as { width?: unknown; height?: unknown }
        return `viewport ${String(size.width)}×${String(size.height)}`
      }
      return `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`
    }
    return Object.entries(settings)
      .map(([key, value]) => phrase(key, value))
      .join(' · ')
  }

  function show(event: AgentEvent): void {
    // The renderer is looked up by the event's own type, so it takes this event; TypeScript cannot tie the two.
    const render = renderers[event.type] as ((event: AgentEvent) => void) | undefined
    render?.(event)
    // The run's own browser is open once it observes a page (a finished run's replay starts nothing).
    if (event.type === 'observation' && event.parentRunId === undefined && !header.isFinished()) live.start()
  }

  common.whenAuthorized(() => {
    void (async () => {
      try {
        await header.load()
        takeover.live(!header.isFinished())
      } catch {
        return
      }
      await common.followEvents(`${base}/events`, show, new AbortController().signal)
    })()
  })
}
