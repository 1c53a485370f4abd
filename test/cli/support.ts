import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

export interface Cli {
  child: ChildProcessWithoutNullStreams
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  /** Resolves once the output contains `text`. */
  waitFor(text: string | RegExp, stream?: 'stdout' | 'stderr'): Promise<string>
  /** The exit code (or 128 + signal number). */
  exited: Promise<number>
}

/** Starts `sextant <args>` as `node src/cli/main.ts`, the way ./dev and bin/sextant.js do. */
export function startCli(args: string[], env: NodeJS.ProcessEnv): Cli {
  return watch(
    spawn(process.execPath, [mainScript, ...args], { cwd: repoRoot, env: { ...baseEnv(), ...env } }),
  )
}

/** Starts the CLI inside a pseudo-terminal (util-linux `script`), so stdin and stdout are TTYs. */
export function startCliInTerminal(args: string[], env: NodeJS.ProcessEnv): Cli {
  const command = [process.execPath, mainScript, ...args].map(shellQuote).join(' ')
  return watch(
    spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: repoRoot,
      env: { ...baseEnv(), TERM: 'xterm-256color', COLUMNS: '120', ...env },
    }),
  )
}

export const hasScript = spawnSync('script', ['--version']).status === 0

function baseEnv(): NodeJS.ProcessEnv {
  // Only what the CLI needs: no SEXTANT_* from the developer's shell leaks into a test.
  return { PATH: process.env.PATH, HOME: process.env.HOME, SEXTANT_CHROMIUM: '/usr/bin/chromium' }
}

function watch(child: ChildProcessWithoutNullStreams): Cli {
  let out = ''
  let err = ''
  const waiters: (() => void)[] = []
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter()
  }
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
    wake()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
    wake()
  })
  const exited = new Promise<number>((resolve) => {
    child.on('close', (code, signal) => {
      wake()
      resolve(code ?? 128 + (signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 9))
    })
  })
  const waitFor = async (text: string | RegExp, stream: 'stdout' | 'stderr' = 'stdout') => {
    for (;;) {
      const output = stream === 'stdout' ? out : err
      const found = typeof text === 'string' ? output.includes(text) : text.test(output)
      if (found) return output
      if (child.exitCode !== null) throw new Error(`The CLI exited before printing ${text}:\n${out}\n${err}`)
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return { child, stdout: () => out, stderr: () => err, waitFor, exited }
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`
}

/** Removes colours and cursor movements from terminal output. */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
  return text.replaceAll(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '')
}
