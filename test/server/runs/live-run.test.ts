import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { sseFrame, sseResponse } from '../../../src/server/http/sse.ts'
import { LiveRun } from '../../../src/server/runs/live-run.ts'
import { PendingReplies } from '../../../src/server/runs/pending-replies.ts'
import { isAbortError } from '../../../src/tool.ts'
import { readSse } from '../support.ts'

const at = '2025-01-01T00:00:00.000Z'

function step(seq: number): AgentEvent {
  return { type: 'step_started', runId: 'r', seq, at, step: seq, maxTurns: 9 }
}

function done(seq: number): AgentEvent {
  return {
    type: 'done',
    runId: 'r',
    seq,
    at,
    reason: 'model_stop',
    result: { success: true, text: 'ok' },
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    steps: seq - 1,
    durationMs: 5,
  }
}

async function collect(iterable: AsyncIterable<AgentEvent>): Promise<number[]> {
  const seqs: number[] = []
  for await (const event of iterable) seqs.push(event.seq)
  return seqs
}

describe('LiveRun', () => {
  test('followers replay what they missed, then receive live events until done', async () => {
    const run = new LiveRun({ id: 'r', task: 't', model: 'm', createdAt: at })
    run.push(step(0))
    run.push(step(1))
    const fromStart = collect(run.follow(-1, new AbortController().signal))
    const afterOne = collect(run.follow(1, new AbortController().signal))
    run.push(step(2))
    run.push(done(3))
    run.markFinished()
    expect(await fromStart).toEqual([0, 1, 2, 3])
    expect(await afterOne).toEqual([2, 3])
    expect(await collect(run.follow(3, new AbortController().signal))).toEqual([])
    expect(run.snapshot()).toMatchObject({
      status: 'completed',
      steps: 2,
      usage: { totalTokens: 2 },
      finishedAt: at,
    })
  })

  test('a follower that leaves stops at once; the run goes on', async () => {
    const run = new LiveRun({ id: 'r', task: 't', model: 'm', createdAt: at })
    run.push(step(0))
    const leaving = new AbortController()
    const follower = collect(run.follow(-1, leaving.signal))
    await new Promise((resolve) => setImmediate(resolve))
    leaving.abort()
    expect(await follower).toEqual([0])
    expect(run.signal.aborted).toBe(false)
    expect(run.snapshot().status).toBe('running')
  })
})

describe('PendingReplies', () => {
  test('a reply that comes before the wait is kept; a second reply is refused', async () => {
    const replies = new PendingReplies<boolean>()
    expect(replies.settle('c1', true)).toBe(false)
    replies.expect('c1')
    expect(replies.isPending('c1')).toBe(true)
    expect(replies.settle('c1', true)).toBe(true)
    expect(replies.settle('c1', false)).toBe(false)
    expect(await replies.wait('c1', new AbortController().signal)).toBe(true)
  })

  test('a wait ends with AbortError when its signal aborts, and the id is no longer pending', async () => {
    const replies = new PendingReplies<string>()
    const controller = new AbortController()
    const waiting = replies.wait('q1', controller.signal)
    expect(replies.isPending('q1')).toBe(true)
    controller.abort()
    const error = await waiting.catch((caught: unknown) => caught)
    expect(isAbortError(error)).toBe(true)
    expect(replies.settle('q1', 'late')).toBe(false)
  })

  test('forget refuses later replies', () => {
    const replies = new PendingReplies<boolean>()
    replies.expect('c1')
    replies.forget('c1')
    expect(replies.settle('c1', true)).toBe(false)
  })
})

describe('SSE framing', () => {
  test('one frame per event: id is the seq, event the type, data one line of JSON; live-only text has no id', () => {
    const event: AgentEvent = {
      type: 'text_delta',
      runId: 'r',
      seq: 7,
      at,
      field: 'memory',
      text: 'two\nlines',
    }
    // Not stored, so not a point to resume from: Last-Event-ID stays the stored event before it.
    expect(sseFrame(event)).toBe(`event: text_delta\ndata: ${JSON.stringify(event)}\n\n`)
    const warning: AgentEvent = { type: 'warning', runId: 'r', seq: 8, at, code: 'c', message: 'm' }
    expect(sseFrame(warning)).toBe(`id: 8\nevent: warning\ndata: ${JSON.stringify(warning)}\n\n`)
    expect(
      sseFrame(event)
        .split('\n')
        .filter((line) => line.startsWith('data:')),
    ).toHaveLength(1)
  })

  // Fake timers: the heartbeat fires when the test says so, and the test can count the timers left.
  describe('heartbeat', () => {
    const heartbeatMs = 1000
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] })
    })
    afterEach(() => {
      vi.useRealTimers()
    })

    /** A live run's stream, read up to its first ping. */
    async function streamToFirstPing() {
      const run = new LiveRun({ id: 'r', task: 't', model: 'm', createdAt: at })
      run.push(step(0))
      const response = sseResponse((signal) => run.follow(-1, signal), { heartbeatMs })
      if (!response.body) throw new Error('The response has no body.')
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      let text = ''
      const read = async () => {
        const chunk = await reader.read()
        if (!chunk.done) text += decoder.decode(chunk.value)
        return chunk.done
      }
      while (!text.includes('event: step_started')) await read()
      expect(text).not.toContain(': ping')
      vi.advanceTimersByTime(heartbeatMs)
      while (!text.includes(': ping')) await read()
      expect(text).toContain('retry: 2000')
      return { run, reader, read, text: () => text }
    }

    test('pings keep a live stream open, and stop with their timer when the client goes away', async () => {
      const { run, reader } = await streamToFirstPing()
      expect(vi.getTimerCount()).toBe(1)
      await reader.cancel()
      expect(vi.getTimerCount()).toBe(0)
      expect(run.signal.aborted).toBe(false)
    })

    test('pings stop with their timer when the run ends', async () => {
      const { run, read, text } = await streamToFirstPing()
      run.push(done(1))
      // The manager marks a run finished once its end is stored; only then is `done` sent.
      run.markFinished()
      while (!(await read()));
      expect(text()).toContain('event: done')
      expect(vi.getTimerCount()).toBe(0)
      const pings = text().split(': ping').length
      vi.advanceTimersByTime(heartbeatMs * 5)
      expect(text().split(': ping').length).toBe(pings)
    })
  })

  test('a replay of stored events ends after them', async () => {
    const response = sseResponse(() => [step(0), step(1), done(2)])
    const messages = await readSse(response)
    expect(messages.map((message) => [message.id, message.event])).toEqual([
      ['0', 'step_started'],
      ['1', 'step_started'],
      ['2', 'done'],
    ])
  })
})
