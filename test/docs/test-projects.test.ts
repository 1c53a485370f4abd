import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import config from '../../vitest.config.ts'

// `./dev test` leaves some projects out (the slow ones); CI must still run every one of them.

const root = join(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
const ci = read('.ci/run')

test('every project the default run leaves out has a script of its own, and .ci/run runs it after the default run', () => {
  const names = (config.test?.projects ?? []).map((project) =>
    typeof project === 'object' && 'test' in project ? project.test?.name : undefined,
  )
  const left = [...(scripts.test ?? '').matchAll(/--project '!([\w-]+)'/g)].map((match) => match[1])
  expect(left.length).toBeGreaterThan(0)
  for (const name of left) {
    expect(names, `project ${name}`).toContain(name)
    const script = Object.keys(scripts).find((key) => scripts[key] === `vitest run --project ${name}`)
    expect(script, `a script that runs project ${name}`).toBeDefined()
    const defaultRun = ci.search(/^\.\/dev test /m)
    const slowRun = ci.search(new RegExp(`^\\./dev ${script} `, 'm'))
    expect(defaultRun, '.ci/run runs ./dev test').toBeGreaterThan(-1)
    expect(slowRun, `.ci/run runs ./dev ${script} after ./dev test`).toBeGreaterThan(defaultRun)
  }
})
