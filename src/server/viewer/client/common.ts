import type { AgentEvent, DoneReason } from '../../../events/events.ts'

/**
 * Browser code of the run viewer, shared by its pages. It is served as the
 * source text of this function (see assets.ts), so it must stay
 * self-contained: no imports of values, nothing from outside its own body.
 * Type-only imports are fine, they vanish when the types are stripped.
 *
 * The API token lives in sessionStorage (this tab only) and travels only as
 * the Authorization header: never in a URL sent to a server, never in a
 * cookie. Pictures are fetched the same way and shown through blob: URLs.
 * The one exception is in: `sextant run` prints its local viewer's URL with
 * `#token=…`, a fragment no browser sends; the page moves it into the tab's
 * storage and out of the address bar and the history at once.
 */
export function clientCommon() {
  const tokenKey = 'sextant.apiToken'
  const body = document.body
  const authRequired = body.dataset.auth === 'required'
  const tokenInUrl = /^#token=([\w-]+)$/.exec(location.hash)?.[1]
  if (tokenInUrl) {
    sessionStorage.setItem(tokenKey, tokenInUrl)
    history.replaceState(null, '', location.pathname + location.search)
  }

  class Unauthorized extends Error {}

  function byId<T extends HTMLElement = HTMLElement>(id: string): T {
    const element = document.getElementById(id)
    if (!element) throw new Error(`#${id} is missing from the page`)
    return element as T
  }

  type Child = Node | string | null | undefined | false
  /** Builds an element; text goes in as text, never as HTML. */
  function el(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
    const element = document.createElement(tag)
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
    for (const child of children) if (child) element.append(child)
    return element
  }

  /** fetch against the API, with the bearer token when there is one; a 401 asks for the token again. */
  async function api(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    const token = sessionStorage.getItem(tokenKey)
    if (token) headers.set('authorization', `Bearer ${token}`)
    const response = await fetch(path, { ...init, headers })
    if (response.status === 401) {
      sessionStorage.removeItem(tokenKey)
      showAuth(token ? 'That token was refused. Enter the server’s API token.' : '')
      throw new Unauthorized('unauthorized')
    }
    return response
  }

  /** The API's error message, for showing to the user. */
  async function errorText(response: Response): Promise<string> {
    try {
      const parsed = (await response.json()) as { error?: { message?: string } }
      return parsed.error?.message ?? `The server answered ${response.status}.`
    } catch {
      return `The server answered ${response.status}.`
    }
  }

  let onAuthorized: () => void = () => {}

  function showAuth(message: string): void {
    byId('auth').hidden = false
    byId('content').hidden = true
    byId('token-error').textContent = message
    byId<HTMLInputElement>('token').focus()
  }

  /** Runs `start` once the page may read the API: at once, or after the token is entered. */
  function whenAuthorized(start: () => void): void {
    onAuthorized = start
    byId<HTMLFormElement>('token-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const input = byId<HTMLInputElement>('token')
      sessionStorage.setItem(tokenKey, input.value.trim())
      input.value = ''
      byId('auth').hidden = true
      byId('content').hidden = false
      onAuthorized()
    })
    if (authRequired && !sessionStorage.getItem(tokenKey)) showAuth('')
    else start()
  }

  /** Reads an SSE body to its end, handing on the `data:` of each message. */
  async function readEventStream(
    body: NonNullable<Response['body']>,
    onData: (data: string) => void,
  ): Promise<void> {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value
      let end = buffer.indexOf('\n\n')
      while (end !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n')
        if (data) onData(data)
      }
    }
  }

  /**
   * Follows a run's events over SSE (fetch, so the bearer header can be sent),
   * resuming after the last seq seen with Last-Event-ID whenever the
   * connection drops, until `done` or until `signal` aborts.
   */
  async function followEvents(
    path: string,
    onEvent: (event: AgentEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let lastSeq = -1
    let finished = false
    while (!finished && !signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' }
        if (lastSeq >= 0) headers['last-event-id'] = String(lastSeq)
        const response = await api(path, { headers, signal })
        if (!response.ok || !response.body) throw new Error(await errorText(response))
        await readEventStream(response.body, (data) => {
          // The server sends only validated events (see events/events.ts), so the page trusts their shape.
          const event = JSON.parse(data) as AgentEvent
          // Text as it streams shares the seq of the event before it, and is never replayed (docs/events.md).
          if (event.type === 'text_delta') return onEvent(event)
          // A replay after a reconnect never shows an event twice.
          if (event.seq <= lastSeq) return
          lastSeq = event.seq
          onEvent(event)
          if (event.type === 'done') finished = true
        })
      } catch (error) {
        if (error instanceof Unauthorized || signal.aborted) return
      }
      if (!finished && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }

  const statusOfReason: Partial<Record<DoneReason, string>> = {
    model_stop: 'completed',
    user_abort: 'stopped',
  }
  function statusFor(reason: DoneReason | undefined): string {
    if (!reason) return 'running'
    return statusOfReason[reason] ?? 'failed'
  }

  function statusBadge(element: HTMLElement, status: string): void {
    element.textContent = status
    element.className = `status ${status}`
  }

  function duration(fromIso: string, toIso?: string): string {
    const ms = Math.max(0, (toIso ? Date.parse(toIso) : Date.now()) - Date.parse(fromIso))
    const seconds = Math.round(ms / 1000)
    if (seconds < 60) return `${seconds} s`
    const minutes = Math.floor(seconds / 60)
    if (minutes < 60) return `${minutes} min ${seconds % 60} s`
    return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
  }

  /** The run's cost once the server knows it (`costUsd`: null when the model's price is unknown); empty otherwise. */
  function cost(run: { costUsd?: number | null }): string {
    const usd = run.costUsd
    if (usd === undefined || usd === null) return ''
    return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
  }

  return {
    api,
    byId,
    el,
    errorText,
    whenAuthorized,
    readEventStream,
    followEvents,
    statusFor,
    statusBadge,
    duration,
    cost,
  }
}

export type ViewerCommon = ReturnType<typeof clientCommon>
