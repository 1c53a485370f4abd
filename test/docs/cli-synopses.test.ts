import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'

// Every command the README shows exists, with the flags it shows: each is run with --help, through
// ./dev as the README writes it, and its help must name every flag of the README's line.

const root = join(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const readme = read('README.md')
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: object }).scripts)
const node = join(root, 'node_modules/.bin/node')
// ./dev provisions first; with a stale stamp it would run `npm ci` inside the test, so it is then bypassed.
const provisioned = (() => {
  try {
    return read('node_modules/.sextant-lock-stamp') === read('package-lock.json')
  } catch {
    return false
  }
})()

/** The CLI words of a command line: `runs export`, `recording check`, `eval`. */
function commandOf(words: string[]): string[] {
  const [command = '', sub = ''] = words
  const hasSubcommand = (command === 'runs' && /^[a-z]+$/.test(sub)) || command === 'recording'
  return hasSubcommand ? [command, sub] : [command]
}

/** Each `./dev …` or `sextant …` command line the README shows, as its CLI words and its flags. */
function shownCommands(): Map<string, Set<string>> {
  const shown = new Map<string, Set<string>>()
  const lines = [
    ...[...readme.matchAll(/^\.\/dev (.+)$/gm)].map((match) => match[1] ?? ''),
    ...[...readme.matchAll(/`(?:\.\/dev|sextant) ([^`]+)`/g)].map((match) => match[1] ?? ''),
  ]
  for (const line of lines) {
    const words = line.split('#')[0]?.trim().split(/\s+/) ?? []
    if (scripts.includes(words[0] ?? '') || words[0] === '"task"') continue
    const key = commandOf(words).join(' ')
    const flags = shown.get(key) ?? new Set<string>()
    for (const [flag = ''] of line.split(' #')[0]?.matchAll(/(?<![\w-])--?[a-z][a-z-]*/g) ?? [])
      flags.add(flag)
    shown.set(key, flags)
  }
  return shown
}

function help(words: string[]): { status: number | null; text: string } {
  const [file, args] = provisioned
    ? [join(root, 'dev'), [...words, '--help']]
    : [node, ['src/cli/main.ts', ...words, '--help']]
  const result = spawnSync(file, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  })
  return { status: result.status, text: result.stdout }
}

describe("the README's commands", () => {
  const shown = shownCommands()

  test('the README shows the CLI commands, and none is also a ./dev script', () => {
    expect([...shown.keys()]).toEqual(
      expect.arrayContaining(['run', 'serve', 'runs', 'runs export', 'replay', 'recording check', 'eval']),
    )
    for (const command of shown.keys()) expect(scripts).not.toContain(command.split(' ')[0])
  })

  test.each([...shown].map(([command, flags]) => [command, [...flags]] as const))(
    '%s --help exits 0 and names %j',
    (command, flags) => {
      const { status, text } = help(command.split(' '))
      expect(status, text).toBe(0)
      for (const flag of flags)
        expect(text, `${command} ${flag}`).toMatch(new RegExp(`(?<![\\w-])${flag}\\b`))
    },
  )
})
