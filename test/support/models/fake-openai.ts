import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A local fake of the OpenAI Chat Completions API, for tests only: the real
 * @ai-sdk/openai provider talks HTTP to it, so the whole wire path to a model
 * runs. Each request takes the next scripted turn; a turn is an AgentOutput
 * tool call, sent in pieces the way OpenAI streams `tool_calls` deltas, or an
 * HTTP error, or a response that never ends.
 */

export interface FakeTurn {
  /** The AgentOutput tool input, e.g. `agentOutput({ navigate: { url } })`. */
  output?: unknown
  /** Raw `function.arguments` text instead of JSON of `output` (malformed output tests). */
  rawArguments?: string
  /** Free text streamed as `content` before the tool call. */
  text?: string
  /** Only the text, no `tool_calls`: what a local server sends when the model wrote its call as text. */
  textOnly?: boolean
  /** Pieces the free text is split into (default 3). */
  textPieces?: number
  /** Answer with this HTTP status and an OpenAI-style error body instead. */
  status?: number
  /** Retry-After header (seconds) with `status`. */
  retryAfterSeconds?: number
  /** Pieces the arguments are split into (default 4). */
  pieces?: number
  /** Wait before the first chunk. */
  delayMs?: number
  /** Wait between chunks. */
  chunkDelayMs?: number
  /** Send the first chunk, then nothing until the client goes away. */
  hang?: boolean
  usage?: { promptTokens: number; completionTokens: number }
  /** A refusal instead of the call: streamed as `delta.refusal` pieces, then `finish_reason: "stop"`. */
  refusal?: string
  /** Out of `max_tokens` inside the call: only the first half of its arguments, then `finish_reason: "length"`. */
  cutOff?: boolean
}

export interface FakeRequest {
  body: ChatRequestBody
  headers: IncomingMessage['headers']
}

export interface ChatRequestBody {
  model: string
  stream?: boolean
  messages: { role: string; content: unknown }[]
  tools?: { type: string; function: { name: string } }[]
  tool_choice?: unknown
  [key: string]: unknown
}

export interface FakeOpenAI {
  /** Base URL for SEXTANT_BASE_URL: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string
  /** Adds turns to the queue. */
  enqueue(...turns: FakeTurn[]): void
  /** Every chat request received, in order. */
  requests: FakeRequest[]
  /** The requests whose response has been sent in full, in the order each ended. */
  answered: FakeRequest[]
  close(): Promise<void>
}

export interface FakeOpenAIOptions {
  /** The turn for a request when the queue is empty (default: a 500 that says so). */
  fallback?: (request: FakeRequest) => FakeTurn
}

/** An AgentOutput input with one action; the reflection fields are filled in. */
export function agentOutput(
  action: Record<string, unknown>,
  goal = 'Continue the task.',
): Record<string, unknown> {
  return {
    evaluation_previous_goal: 'Success: the page shows what was expected.',
    memory: 'Working on the task.',
    next_goal: goal,
    action,
  }
}

export function doneTurn(text = 'Finished.', success = true, extra: Partial<FakeTurn> = {}): FakeTurn {
  return { output: agentOutput({ done: { text, success } }, 'Report the result.'), ...extra }
}

export function navigateTurn(url: string, extra: Partial<FakeTurn> = {}): FakeTurn {
  return { output: agentOutput({ navigate: { url } }, `Open ${url}.`), ...extra }
}

export function actionTurn(tool: string, input: unknown, extra: Partial<FakeTurn> = {}): FakeTurn {
  return { output: agentOutput({ [tool]: input }), ...extra }
}

/** All text of a request's messages: lets a fallback route requests by task. */
export function promptText(request: FakeRequest): string {
  return request.body.messages.map((message) => contentText(message.content)).join('\n')
}

/** Turns scripted per task text, so each run (concurrent ones too) follows its own script. */
export interface ScriptedTurns {
  /** The fake's `fallback`: the next turn of the task the prompt names, else `otherwise`. */
  fallback(request: FakeRequest): FakeTurn
  /** Gives a task its turns (the model's answers, in order) and returns the task's text. */
  script(task: string, ...turns: FakeTurn[]): string
  /** Forgets every script. */
  clear(): void
}

export function scriptedTurns(
  otherwise: () => FakeTurn = () => doneTurn('Nothing left to do.', false),
): ScriptedTurns {
  const scripts = new Map<string, FakeTurn[]>()
  return {
    fallback(request) {
      const prompt = promptText(request)
      for (const [task, turns] of scripts) {
        const next = prompt.includes(task) ? turns.shift() : undefined
        if (next) return next
      }
      return otherwise()
    },
    script(task, ...turns) {
      scripts.set(task, turns)
      return task
    },
    clear() {
      scripts.clear()
    },
  }
}

/** The ref of a line of the latest page view in a request's prompt, e.g. `textbox "Password"`. */
export function refInView(request: FakeRequest, line: string): string {
  const text = promptText(request)
  const view = text.slice(text.lastIndexOf('URL:'))
  const match = new RegExp(`${line}[^\\n]*\\[ref=([^\\]]+)\\]`).exec(view)
  if (!match?.[1]) throw new Error(`No ${line} in the page view:\n${view}`)
  return match[1]
}

/** A message's text as the model reads it: a string, or its text parts joined (the cached prompt layout sends parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return JSON.stringify(content)
  return content
    .map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('')
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeTurn[] = []
  const requests: FakeRequest[] = []
  const answered: FakeRequest[] = []
  const sockets = new Set<Socket>()
  let counter = 0

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      sendJson(res, 404, {
        error: { message: `No fake route for ${req.method} ${req.url}`, type: 'not_found' },
      })
      return
    }
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request: FakeRequest = {
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      headers: req.headers,
    }
    requests.push(request)
    const turn = queue.shift() ??
      options.fallback?.(request) ?? { status: 500, text: 'The fake model has no scripted turn left.' }
    const id = `chatcmpl-${++counter}`
    await wait(turn.delayMs, res)

    if (turn.status !== undefined) {
      const headers: Record<string, string> =
        turn.retryAfterSeconds === undefined ? {} : { 'retry-after': String(turn.retryAfterSeconds) }
      sendJson(
        res,
        turn.status,
        {
          error: {
            message: turn.text ?? `Scripted failure ${turn.status}.`,
            type: 'server_error',
            code: null,
          },
        },
        headers,
      )
      return
    }
    const args = turn.rawArguments ?? JSON.stringify(turn.output ?? {})
    const usage = turn.usage ?? { promptTokens: 100, completionTokens: 20 }
    res.on('finish', () => answered.push(request))
    if (request.body.stream) await streamTurn(res, id, request.body.model, turn, args, usage, counter)
    else
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: turn.text ?? null,
              tool_calls: [
                {
                  id: `call_${counter}`,
                  type: 'function',
                  function: { name: 'AgentOutput', arguments: args },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: toOpenAIUsage(usage),
      })
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    enqueue: (...turns) => queue.push(...turns),
    requests,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

async function streamTurn(
  res: ServerResponse,
  id: string,
  model: string,
  turn: FakeTurn,
  args: string,
  usage: { promptTokens: number; completionTokens: number },
  callNumber: number,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const created = Math.floor(Date.now() / 1000)
  const send = async (choices: unknown[], extra: Record<string, unknown> = {}) => {
    if (res.destroyed) return
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`,
    )
    await wait(turn.chunkDelayMs, res)
  }

  await send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])
  if (turn.hang) return // The response stays open until the client aborts or the fake closes.
  if (turn.refusal !== undefined) {
    for (const piece of split(turn.refusal, 3)) {
      await send([{ index: 0, delta: { refusal: piece }, finish_reason: null }])
    }
    await send([{ index: 0, delta: {}, finish_reason: 'stop' }])
    await send([], { usage: toOpenAIUsage(usage) })
    if (!res.destroyed) res.end('data: [DONE]\n\n')
    return
  }
  if (turn.text) {
    for (const piece of split(turn.text, turn.textPieces ?? 3)) {
      await send([{ index: 0, delta: { content: piece }, finish_reason: null }])
    }
  }
  if (turn.textOnly) {
    await send([{ index: 0, delta: {}, finish_reason: 'stop' }])
    await send([], { usage: toOpenAIUsage(usage) })
    if (!res.destroyed) res.end('data: [DONE]\n\n')
    return
  }
  const [first = '', ...allRest] = split(args, turn.pieces ?? 4)
  const rest = turn.cutOff ? allRest.slice(0, Math.floor(allRest.length / 2)) : allRest
  await send([
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index: 0,
            id: `call_${callNumber}`,
            type: 'function',
            function: { name: 'AgentOutput', arguments: first },
          },
        ],
      },
      finish_reason: null,
    },
  ])
  for (const piece of rest) {
    await send([
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
        finish_reason: null,
      },
    ])
  }
  await send([{ index: 0, delta: {}, finish_reason: turn.cutOff ? 'length' : 'tool_calls' }])
  await send([], { usage: toOpenAIUsage(usage) })
  if (!res.destroyed) res.end('data: [DONE]\n\n')
}

function toOpenAIUsage(usage: { promptTokens: number; completionTokens: number }) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  }
}

function split(text: string, pieces: number): string[] {
  if (text.length === 0) return ['']
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)))
  const parts: string[] = []
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size))
  return parts
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** Waits, or stops waiting when the client has gone. */
function wait(ms: number | undefined, res: ServerResponse): Promise<void> {
  if (!ms) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    res.once('close', done)
    function done() {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
  })
}
