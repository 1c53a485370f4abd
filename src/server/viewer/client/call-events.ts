import type { EventRenderers, RunPage } from './event-renderers.ts'

/**
 * Browser code: a step's action (outlined on its screenshot when the box is
 * known) and its result under it. Served as source text (see assets.ts):
 * self-contained.
 */
export function callEvents({ common, timeline }: RunPage): EventRenderers {
  const { el } = common
  return {
    tool_call_start: (event) => {
      const step = timeline.current()
      if (!step) return
      if (event.box) {
        step.box = event.box
        timeline.markTarget(step)
      }
      step.side.append(
        el(
          'div',
          { class: 'action', 'data-call-id': event.callId },
          el('code', {}, `${event.tool} ${JSON.stringify(event.input)}`),
        ),
      )
    },
    tool_call_result: (event) => {
      const side = timeline.current()?.side
      const action = side?.querySelector(`[data-call-id="${CSS.escape(event.callId)}"]`)
      const target = action ?? side ?? timeline.list
      target.append(
        el(
          'div',
          { class: `result ${event.ok ? 'ok' : 'failed'}` },
          `${event.ok ? '✓' : '✗'} ${event.result} (${event.durationMs} ms)`,
        ),
      )
    },
  }
}
