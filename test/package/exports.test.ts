import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'

const run = promisify(execFile)
const root = resolve(import.meta.dirname, '../..')
const bin = (name: string) => join(root, 'node_modules/.bin', name)
let consumer: string

// What a user of the package gets: the built `dist` through the `exports` map, with its types.
beforeAll(async () => {
  await run('npm', ['run', '-s', 'build'], { cwd: root })
  consumer = await mkdtemp(join(tmpdir(), 'sextant-consumer-'))
  await mkdir(join(consumer, 'node_modules'))
  await symlink(root, join(consumer, 'node_modules/sextant'))
  await symlink(join(root, 'node_modules/ai'), join(consumer, 'node_modules/ai'))
  await writeFile(join(consumer, 'package.json'), '{ "type": "module" }')
  await writeFile(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2024',
        strict: true,
        noEmit: true,
        types: [],
        skipLibCheck: true,
      },
    }),
  )
  await writeFile(
    join(consumer, 'use.ts'),
    `import { type AgentEvent, createBrowserPool, createStuckDetector, runAgent } from 'sextant'
import { MockLanguageModelV4 } from 'ai/test'
const model = new MockLanguageModelV4({ doStream: async () => { throw new Error('no model here') } })
const events: AgentEvent[] = []
for await (const event of runAgent({ task: 't', model, browser: null })) events.push(event)
const last = events.at(-1)
console.log(last?.type === 'done' ? last.reason : 'no done')
// The README's examples use these: they must be exported, and callable.
console.log(typeof createBrowserPool().newSession, typeof createStuckDetector({ stallSteps: 4 }))
`,
  )
}, 120_000)

afterAll(async () => {
  if (consumer) await rm(consumer, { recursive: true, force: true })
})

test("import { runAgent } from 'sextant' type-checks against the built package", async () => {
  await expect(run(bin('tsc'), ['-p', consumer])).resolves.toBeDefined()
})

test("import { runAgent } from 'sextant' runs from the built package", async () => {
  const { stdout } = await run(bin('node'), [join(consumer, 'use.ts')], { cwd: consumer })
  expect(stdout.trim().split('\n')).toEqual(['error', 'function object'])
})
