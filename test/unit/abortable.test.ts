import { expect, test } from 'vitest'
import { AbortError, abortable } from '../../src/tool.ts'

// A call abandoned because its run stopped (a CDP send to a page that then closes) may still fail later:
// that failure is nobody's to handle, and must not surface as an unhandled rejection, which ends a server.
test('a call abandoned to an abort that had already happened fails later without an unhandled rejection', async () => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  try {
    const controller = new AbortController()
    controller.abort()
    let fail: (error: Error) => void = () => {}
    const call = new Promise<never>((_, reject) => {
      fail = reject
    })
    await expect(abortable(call, controller.signal)).rejects.toBeInstanceOf(AbortError)
    fail(new Error('Target page, context or browser has been closed'))
    // Node reports an unhandled rejection once the microtasks after it have run: a macrotask later.
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(unhandled).toEqual([])
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
})

test('a call abandoned to an abort during it fails later without an unhandled rejection', async () => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  try {
    const controller = new AbortController()
    let fail: (error: Error) => void = () => {}
    const call = new Promise<never>((_, reject) => {
      fail = reject
    })
    const waiting = abortable(call, controller.signal)
    controller.abort()
    await expect(waiting).rejects.toBeInstanceOf(AbortError)
    fail(new Error('Target page, context or browser has been closed'))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(unhandled).toEqual([])
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
})
