import { expect, test } from 'vitest'
import { sleep } from '../../src/tool.ts'
test('node version', async () => {
  await sleep(1, new AbortController().signal)
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22)
})
