/** What a session must offer to be ended when it has been idle too long. */
export interface ClosableSession {
  close(): Promise<void>
}

export interface SessionLimits {
  /** Sessions kept at once; past it, a new one is refused. */
  maxSessions: number
  /** A session with no task and no request in flight for this long is closed. */
  idleMs: number
}

interface Entry<T> {
  session: T
  /** Tasks (browser_task, replay_run) and requests in flight in this session. */
  holds: number
  timer: NodeJS.Timeout | undefined
}

/**
 * The MCP sessions a server keeps over streamable HTTP. A client that never
 * says goodbye costs a bounded amount: its session ends once idle. A session is
 * never ended to make room for another: a client's task in flight belongs to
 * it, so past the limit the newcomer is refused instead (docs/security.md).
 */
export class HttpSessions<T extends ClosableSession> {
  readonly #limits: SessionLimits
  readonly #entries = new Map<string, Entry<T>>()
  /** Slots reserved by initialize requests not yet answered. */
  #opening = 0

  constructor(limits: SessionLimits) {
    this.#limits = limits
  }

  get limits(): SessionLimits {
    return this.#limits
  }

  get size(): number {
    return this.#entries.size
  }

  /** A slot for a session about to be opened, released by the returned function; undefined when none is free. */
  reserve(): (() => void) | undefined {
    if (this.#entries.size + this.#opening >= this.#limits.maxSessions) return undefined
    this.#opening += 1
    let released = false
    return () => {
      if (released) return
      released = true
      this.#opening -= 1
    }
  }

  /** Keeps an initialized session (its slot reserved beforehand). */
  add(id: string, session: T): void {
    const entry: Entry<T> = { session, holds: 0, timer: undefined }
    this.#entries.set(id, entry)
    this.#arm(id, entry)
  }

  /** The session, its idle time started over. */
  get(id: string): T | undefined {
    const entry = this.#entries.get(id)
    if (entry) this.#arm(id, entry)
    return entry?.session
  }

  /** Forgets a session that closed. */
  remove(id: string): void {
    const entry = this.#entries.get(id)
    if (entry) clearTimeout(entry.timer)
    this.#entries.delete(id)
  }

  /**
   * A task or a request starts in the session: it is not idle, and is never
   * closed, until the returned function says it ended.
   */
  hold(id: string): () => void {
    const entry = this.#entries.get(id)
    if (!entry) return () => {}
    entry.holds += 1
    clearTimeout(entry.timer)
    let ended = false
    return () => {
      if (ended) return
      ended = true
      entry.holds -= 1
      if (this.#entries.get(id) === entry) this.#arm(id, entry)
    }
  }

  #arm(id: string, entry: Entry<T>): void {
    clearTimeout(entry.timer)
    entry.timer = undefined
    if (entry.holds > 0) return
    entry.timer = setTimeout(() => {
      if (entry.holds > 0 || this.#entries.get(id) !== entry) return
      this.remove(id)
      void entry.session.close().catch(() => {})
    }, this.#limits.idleMs)
    // An idle session's timer never keeps the process alive.
    entry.timer.unref()
  }
}

/**
 * The response, calling `release` once its body was read to the end or
 * dropped: a request's stream (a tool call's progress) counts as activity
 * while it lasts, not only when it starts.
 */
export function releasedWhenRead(response: Response, release: () => void): Response {
  if (!response.body) {
    release()
    return response
  }
  const reader = response.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          release()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        release()
        controller.error(error)
      }
    },
    cancel(reason) {
      release()
      return reader.cancel(reason)
    },
  })
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
