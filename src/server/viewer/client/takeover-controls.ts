import type { AgentEventOf } from '../../../events/events.ts'
import type { RunPage } from './event-renderers.ts'

/**
 * Browser code: a person takes the run's browser and hands it back. Take over
 * asks the run to stop at its next step; while taken over a banner says why
 * and since when, with Hand back; clicks, the wheel and keys on the live
 * frame (`#live-frame`, whose data-viewport-width/height give the page's CSS
 * size) go to the page through /input. Served as source text (see assets.ts):
 * self-contained.
 */
export function takeoverControls({ common, base, timeline }: RunPage) {
  const { api, byId, el, errorText } = common
  const takeOverButton = byId<HTMLButtonElement>('take-over')
  const banner = byId('takeover')
  const liveSection = byId('live')
  const error = el('p', { role: 'alert' })
  let takenOver = false
  /** Input is sent one at a time, in order: a click must not overtake the keys typed before it. */
  let sending: Promise<unknown> = Promise.resolve()
  /** Wheel turns that came while one was being sent: sent together next. */
  let wheel: { x: number; y: number; dx: number; dy: number } | undefined

  takeOverButton.addEventListener('click', () => {
    takeOverButton.disabled = true
    void call('POST', `${base}/takeover`).then((ok) => {
      if (!ok && !takenOver) takeOverButton.disabled = false
    })
  })

  async function call(method: string, path: string, body?: unknown): Promise<boolean> {
    try {
      const response = await api(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
      if (response.ok) error.textContent = ''
      else error.textContent = await errorText(response)
      return response.ok
    } catch {
      return false
    }
  }

  function send(input: Record<string, unknown>): void {
    sending = sending.then(() => call('POST', `${base}/input`, input))
  }

  function liveFrame(): HTMLElement | null {
    return document.getElementById('live-frame')
  }

  /** A point on the live frame as viewport CSS pixels of the run's page; undefined when it cannot be told. */
  function pagePoint(
    frame: HTMLElement,
    clientX: number,
    clientY: number,
  ): { x: number; y: number } | undefined {
    const rect = frame.getBoundingClientRect()
    const width = Number(frame.dataset.viewportWidth)
    const height = Number(frame.dataset.viewportHeight)
    if (!(width > 0 && height > 0 && rect.width > 0 && rect.height > 0)) return undefined
    const x = Math.round(((clientX - rect.left) * width) / rect.width)
    const y = Math.round(((clientY - rect.top) * height) / rect.height)
    return { x: Math.min(width - 1, Math.max(0, x)), y: Math.min(height - 1, Math.max(0, y)) }
  }

  function onFrame(event: Event): HTMLElement | undefined {
    const frame = liveFrame()
    if (!takenOver || !frame || event.target !== frame) return undefined
    return frame
  }

  function clicked(event: MouseEvent, button: 'left' | 'middle' | 'right'): void {
    const frame = onFrame(event)
    if (!frame) return
    event.preventDefault()
    frame.focus()
    const point = pagePoint(frame, event.clientX, event.clientY)
    if (point) send({ type: 'click', ...point, button })
  }

  document.addEventListener('click', (event) => clicked(event, 'left'))
  document.addEventListener('auxclick', (event) => {
    if (event.button === 1) clicked(event, 'middle')
  })
  document.addEventListener('contextmenu', (event) => clicked(event, 'right'))
  document.addEventListener(
    'wheel',
    (event) => {
      const frame = onFrame(event)
      if (!frame) return
      event.preventDefault()
      const point = pagePoint(frame, event.clientX, event.clientY)
      if (!point) return
      const waiting = wheel
      wheel = { ...point, dx: (waiting?.dx ?? 0) + event.deltaX, dy: (waiting?.dy ?? 0) + event.deltaY }
      if (waiting) return
      sending = sending.then(() => {
        const turn = wheel
        wheel = undefined
        return turn ? call('POST', `${base}/input`, { type: 'wheel', ...turn }) : undefined
      })
    },
    { passive: false },
  )
  document.addEventListener('keydown', (event) => {
    const frame = liveFrame()
    if (!takenOver || !frame || document.activeElement !== frame) return
    if (['Shift', 'Control', 'Alt', 'Meta'].includes(event.key)) return
    event.preventDefault()
    const modifiers = [
      event.ctrlKey && 'Control',
      event.altKey && 'Alt',
      event.metaKey && 'Meta',
      event.shiftKey && event.key.length > 1 && 'Shift',
    ].filter(Boolean)
    // A plain character is typed as text (layouts differ); anything else is pressed by its key name.
    if (event.key.length === 1 && modifiers.length === 0) send({ type: 'type', text: event.key })
    else send({ type: 'key', key: [...modifiers, event.key === ' ' ? 'Space' : event.key].join('+') })
  })

  function started(event: AgentEventOf<'takeover_started'>): void {
    takenOver = true
    takeOverButton.disabled = true
    const handBack = el('button', { type: 'button' }, 'Hand back')
    handBack.addEventListener('click', () => {
      handBack.setAttribute('disabled', '')
      void call('DELETE', `${base}/takeover`).then((ok) => {
        if (!ok) handBack.removeAttribute('disabled')
      })
    })
    const since = new Date(event.at).toLocaleTimeString()
    // Filled (and kept current) by the live view from each frame's origin, as the browser reports it.
    const shownOrigin = document.querySelector('[data-live-origin]')?.textContent || 'not known yet'
    banner.replaceChildren(
      el('h2', {}, event.by === 'model' ? 'The model asks for a person' : 'A person has the browser'),
      el('p', { class: 'address' }, 'The page is at ', el('strong', { 'data-live-origin': '' }, shownOrigin)),
      ...(event.reason === undefined ? [] : modelWords(event.reason)),
      el('p', { class: 'muted' }, `Since ${since}. Click, scroll and type on the live view to use the page.`),
      el('div', { class: 'row' }, handBack),
      error,
    )
    banner.hidden = false
    frameTakesInput(true)
    timeline.note(
      'info',
      `Taken over (by ${event.by})${event.reason ? `. The model says: “${oneLine(event.reason)}”` : ''}`,
    )
  }

  /**
   * The model's reason, which a page can dictate, quoted and labelled as the
   * model's words and isolated from the text around it; never Sextant's own
   * message.
   */
  function modelWords(reason: string): HTMLElement[] {
    return [
      el('p', { class: 'model-words' }, 'The model says: “', el('bdi', {}, oneLine(reason)), '”'),
      el(
        'p',
        { class: 'muted' },
        'These are the model’s words, not Sextant’s, and a web page can put words in its mouth. Check the address above before you type anything into the page.',
      ),
    ]
  }

  function oneLine(text: string): string {
    return text.replace(/\s+/g, ' ').trim()
  }

  /**
   * While taken over, the live frame takes the person's pointer and keys: it
   * can hold the focus (so keys go to the run's page) and its card says so.
   */
  function frameTakesInput(takes: boolean): void {
    liveSection.classList.toggle('taken-over', takes)
    const frame = liveFrame()
    if (takes) frame?.setAttribute('tabindex', '0')
    else frame?.removeAttribute('tabindex')
  }

  function ended(event: AgentEventOf<'takeover_ended'>): void {
    takenOver = false
    frameTakesInput(false)
    banner.hidden = true
    banner.replaceChildren()
    takeOverButton.disabled = false
    timeline.note('info', `Handed back after ${Math.round(event.durationMs / 1000)} s.`)
  }

  return {
    renderers: { takeover_started: started, takeover_ended: ended },
    /** Whether the run is live, so it can be taken over (once its state is read). */
    live(isLive: boolean): void {
      takeOverButton.disabled = !isLive || takenOver
    },
    finish(): void {
      takenOver = false
      frameTakesInput(false)
      takeOverButton.disabled = true
      banner.hidden = true
    },
  }
}

export type TakeoverControls = ReturnType<typeof takeoverControls>
