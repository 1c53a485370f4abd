import type { ToolEvent } from '../../tool.ts'

/** The events a running tool emits, waiting for the loop's next transition to yield them. */
export class ToolEventQueue {
  private pending: ToolEvent[] = []
  private wakeUp: (() => void) | undefined

  push(event: ToolEvent) {
    this.pending.push(event)
    this.wakeUp?.()
  }

  take(): ToolEvent[] {
    return this.pending.splice(0)
  }

  /** Resolves once an event is waiting (at once if one already is). */
  waitForEvent(): Promise<void> {
    if (this.pending.length > 0) return Promise.resolve()
    return new Promise((resolve) => {
      this.wakeUp = () => {
        this.wakeUp = undefined
        resolve()
      }
    })
  }
}
