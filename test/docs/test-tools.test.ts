import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { testTools } from '../support/suite/test-tools.ts'

test("./dev test installs exactly the Debian packages the suite's tools list names", () => {
  const dev = readFileSync(new URL('../../dev', import.meta.url), 'utf8')
  const list = /^test_tools=\(([^)]*)\)/m.exec(dev)?.[1]
  expect(list, 'dev has no test_tools=(…) list').toBeDefined()
  const devPackages = [...(list ?? '').matchAll(/"[^"]*:([^":]+)"/g)].map((match) => match[1])
  const suitePackages = Object.values(testTools).map((tool) => tool.debianPackage)
  expect(devPackages.sort()).toEqual(suitePackages.sort())
})
