import { expect, test } from 'vitest'
import { AbortError, abortable } from '../../src/tool.ts'

// A call abandoned because its run stopped (a CDP send to a page that then closes) may still fail later:
// that failure is nobody's to handle, and must not surface as an unhandled rejection, which ends a server.

/** A call that fails when told, as a CDP send does once its target closes. */
function pendingCall(): { call: Promise<never>; fail: () => void } {
  let fail = () => {}
  const call = new Promise<never>((_, reject) => {
    fail = () => reject(new Error('Target page, context or browser has been closed'))
  })
  return { call, fail }
}

/** The unhandled rejections Node reports while `work` runs and a macrotask after it (when Node reports them). */
async function unhandledDuring(work: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  try {
    await work()
    await new Promise((resolve) => setTimeout(resolve, 10))
    return unhandled
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
}

test('a call given to an abort that had already happened fails later without an unhandled rejection', async () => {
  const unhandled = await unhandledDuring(async () => {
    const { call, fail } = pendingCall()
    await expect(abortable(call, AbortSignal.abort())).rejects.toBeInstanceOf(AbortError)
    fail()
  })
  expect(unhandled).toEqual([])
})

test('a call abandoned to an abort during it fails later without an unhandled rejection', async () => {
  const unhandled = await unhandledDuring(async () => {
    const { call, fail } = pendingCall()
    const controller = new AbortController()
    const waiting = abortable(call, controller.signal)
    controller.abort()
    await expect(waiting).rejects.toBeInstanceOf(AbortError)
    fail()
  })
  expect(unhandled).toEqual([])
})
