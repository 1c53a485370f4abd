import { createServer, request as httpRequest } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'

/**
 * A plain HTTP forward proxy on 127.0.0.1, as a run's upstream proxy: it
 * answers absolute-form requests and CONNECT tunnels, asks for Basic
 * credentials when given some (407 without them), and records every target
 * it was asked for and the credentials that came with it.
 */
export interface ForwardProxy {
  url: string
  /** `GET http://host:port/path` or `CONNECT host:port`, with the credentials sent (decoded), in order. */
  seen: { request: string; credentials: string | undefined }[]
  close(): Promise<void>
}

export async function startForwardProxy(credentials?: {
  username: string
  password: string
}): Promise<ForwardProxy> {
  const seen: ForwardProxy['seen'] = []
  const sockets = new Set<Socket>()
  const expected = credentials && `${credentials.username}:${credentials.password}`
  const decode = (header: string | undefined) =>
    header?.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : undefined

  const server = createServer((request, response) => {
    const given = decode(request.headers['proxy-authorization'])
    seen.push({ request: `${request.method} ${request.url}`, credentials: given })
    if (expected && given !== expected) return void response.writeHead(407).end()
    const target = new URL(request.url ?? '')
    const headers = { ...request.headers }
    delete headers['proxy-authorization']
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port || 80,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
        answer.pipe(response)
      },
    )
    forwarded.on('error', () => response.destroy())
    request.pipe(forwarded)
  })
  server.on('connect', (request, client: Socket, head: Buffer) => {
    sockets.add(client)
    const given = decode(request.headers['proxy-authorization'])
    seen.push({ request: `CONNECT ${request.url}`, credentials: given })
    if (expected && given !== expected)
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n')
    const [host = '', port = '443'] = (request.url ?? '').split(/:(?=\d+$)/)
    const upstream = connect({ host: host.replace(/^\[|\]$/g, ''), port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      client.pipe(upstream)
      upstream.pipe(client)
    })
    sockets.add(upstream)
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
