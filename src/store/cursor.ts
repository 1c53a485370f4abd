/**
 * Page cursors: the position of the last run of a page (createdAt, id), opaque
 * to clients. Ordering by both keeps pages stable when runs share a timestamp.
 */
export interface CursorPosition {
  createdAt: string
  id: string
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url')
}

export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError'
  constructor() {
    super('The cursor is not one this server returned; pass nextCursor from a previous page.')
  }
}

export function decodeCursor(cursor: string): CursorPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) {
      return { createdAt: value[0] as string, id: value[1] as string }
    }
  } catch {
    // Reported below, like any other malformed cursor.
  }
  throw new InvalidCursorError()
}

/** Newest first: later createdAt, then larger id. */
export function isBefore(run: CursorPosition, position: CursorPosition): boolean {
  return run.createdAt < position.createdAt || (run.createdAt === position.createdAt && run.id < position.id)
}
