import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { ApiError } from './api-errors.ts'

/**
 * Bearer-token check for /v1 routes. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of the guess.
 */
export function bearerAuth(token: string): MiddlewareHandler {
  const expected = digest(token)
  return async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const given = /^Bearer\s+(.+)$/i.exec(header.trim())?.[1]
    if (given === undefined) {
      throw new ApiError(
        401,
        'unauthorized',
        'This server needs "Authorization: Bearer <SEXTANT_API_TOKEN>".',
        {
          'WWW-Authenticate': 'Bearer',
        },
      )
    }
    if (!timingSafeEqual(digest(given), expected)) {
      throw new ApiError(401, 'unauthorized', 'The bearer token is not valid for this server.', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      })
    }
    await next()
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
