import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect, test } from 'vitest'

// A comment that sends the reader to another file ("see util/host-rules.ts") must name one that
// exists: files move (rooms, renames) and the pointers in comments were left behind before.

const root = join(import.meta.dirname, '../..')
const src = join(root, 'src')

/** Whether `path` names a file from `folder` or one of its parents up to the repository's root (how comments write them). */
function resolves(folder: string, path: string): boolean {
  for (let at = folder; at.startsWith(root); at = dirname(at)) if (existsSync(join(at, path))) return true
  return false
}

test('every .ts file a comment in src/ names exists, from the comment’s folder or a parent of it', () => {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
  const missing: string[] = []
  let named = 0
  for (const file of files) {
    const comments = readFileSync(join(src, file), 'utf8')
      .split('\n')
      .filter((line) => /^\s*(\/\/|\/\*\*|\*)/.test(line))
    for (const line of comments) {
      for (const [path = ''] of line.matchAll(/(?<![\w./-])(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.ts\b/g)) {
        named++
        if (!resolves(dirname(join(src, file)), path)) missing.push(`${file}: ${path}`)
      }
    }
  }
  expect(named).toBeGreaterThan(10)
  expect(missing).toEqual([])
})
