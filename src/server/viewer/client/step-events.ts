import type { AgentEventOf } from '../../../events/events.ts'
import type { EventRenderers, RunPage } from './event-renderers.ts'
import type { Step } from './run-timeline.ts'

/**
 * Browser code: a step's card opens, shows the page the model saw (title,
 * URL, screenshot, the page view on demand) and its reflection as it streams.
 * Served as source text (see assets.ts): self-contained.
 */
export function stepEvents({ common, base, header, timeline }: RunPage): EventRenderers {
  const { api, el, errorText } = common

  async function showScreenshot(step: Step, url: string): Promise<void> {
    const image = el('img', { alt: `Step ${step.number} screenshot`, width: '1280', height: '800' })
    const figure = el('figure', { class: 'shot' }, image)
    step.figure = figure
    step.item.insertBefore(figure, step.side)
    timeline.markTarget(step)
    try {
      const response = await api(url)
      if (!response.ok) throw new Error(await errorText(response))
      image.setAttribute('src', URL.createObjectURL(await response.blob()))
    } catch {
      figure.replaceChildren(el('p', { class: 'note' }, 'The screenshot could not be loaded.'))
    }
  }

  /** The step's page view, fetched the first time someone opens it. */
  function pageViewButton(step: Step): void {
    const details = el('details', { class: 'page-view' }, el('summary', {}, 'Page view'))
    details.addEventListener(
      'toggle',
      () => {
        void (async () => {
          const text = el('pre', {}, 'Loading…')
          details.append(text)
          try {
            const response = await api(`${base}/steps/${step.number}/page-view`)
            text.textContent = response.ok ? await response.text() : await errorText(response)
          } catch {
            text.textContent = 'The page view could not be loaded.'
          }
        })()
      },
      { once: true },
    )
    step.side.append(details)
  }

  /** What the pages reported since the step before: console errors and warnings, failed or refused requests. */
  function pageLogList(log: NonNullable<AgentEventOf<'observation'>['pageLog']>): HTMLElement {
    const lines = [
      ...log.console.map((entry) => {
        const what = entry.level === 'exception' ? 'Uncaught exception' : `Console ${entry.level}`
        return el('li', { class: entry.level === 'warning' ? 'warning' : 'error' }, `${what}: ${entry.text}`)
      }),
      ...log.network.map((entry) => {
        const outcome = entry.refused
          ? `refused: ${entry.refused}`
          : entry.failure
            ? `failed: ${entry.failure}`
            : String(entry.status ?? '')
        return el('li', { class: 'error' }, `${entry.method} ${entry.url} → ${outcome}`)
      }),
    ]
    if (log.omitted > 0) lines.push(el('li', { class: 'muted' }, `… and ${log.omitted} more`))
    return el(
      'section',
      { class: 'page-log', 'aria-label': 'The page reported' },
      el('h3', {}, 'The page reported'),
      el('ul', {}, ...lines),
    )
  }

  const reflectionFields = ['evaluation_previous_goal', 'memory', 'next_goal'] as const

  return {
    step_started: (event) => {
      timeline.stepFor(event.step)
      // The header's steps and duration follow the run; the replay of a finished run needs no refresh.
      if (!header.isFinished()) void header.load().catch(() => {})
    },
    observation: (event) => {
      const step = timeline.current()
      if (!step) return
      step.side.prepend(el('p', { class: 'muted' }, `${event.title || 'Untitled'} — ${event.url}`))
      if (event.pageLog) step.side.append(pageLogList(event.pageLog))
      if (event.screenshot === undefined) return
      if (!step.figure) void showScreenshot(step, event.screenshot)
      if (!step.side.querySelector('details')) pageViewButton(step)
    },
    text_delta: (event) => {
      const step = timeline.current()
      if (step) timeline.thoughtField(step, event.field).append(event.text)
    },
    reflection: (event) => {
      const step = timeline.current()
      if (!step) return
      for (const field of reflectionFields) timeline.thoughtField(step, field).textContent = event[field]
      if (event.text !== undefined) timeline.thoughtField(step, 'text').textContent = event.text
    },
  }
}
