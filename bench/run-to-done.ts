import { createParser } from 'eventsource-parser'

/**
 * POSTs a run and reads its SSE stream to `done`: the time to its first event
 * and how many events it sent. Shared by the server and scale benches.
 */
export async function runToDone(
  url: string,
  task: string,
): Promise<{ firstEventMs: number; events: number }> {
  const started = performance.now()
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task }),
  })
  if (response.status !== 200)
    throw new Error(`POST /v1/runs answered ${response.status}: ${await response.text()}`)
  let firstEventMs = 0
  let events = 0
  let done = false
  const parser = createParser({
    onEvent(message) {
      if (events++ === 0) firstEventMs = performance.now() - started
      if (message.event === 'done') done = true
    },
  })
  const decoder = new TextDecoder()
  if (!response.body) throw new Error('No body.')
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
  if (!done) throw new Error('The stream ended without done.')
  return { firstEventMs, events }
}
