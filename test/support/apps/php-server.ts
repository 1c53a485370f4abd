import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../postgres-cluster.ts'
import { until } from '../until.ts'

export interface PhpServer {
  /** `http://127.0.0.1:<port>`, the address the application must be installed under. */
  url: string
  stop(): Promise<void>
}

/** A PHP string literal of `text`. */
export function phpString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/**
 * An application's code served as Debian installed it, read-only, by PHP's built-in server on a free
 * port: its router script (written into `dir`) defines `constants` before every request, which is how a
 * test points the application at its own configuration in a temp folder instead of the one under /etc.
 * `ready` is a path that answers once the application is up. Stopped with its process.
 */
export async function startPhpServer(options: {
  docroot: string
  dir: string
  constants: Record<string, string>
  ready: string
  /** A port chosen beforehand, for an application whose installer writes its address down; else a free one. */
  port?: number
}): Promise<PhpServer> {
  const router = join(options.dir, 'router.php')
  const defines = Object.entries(options.constants).map(
    ([name, value]) => `define(${phpString(name)}, ${phpString(value)});`,
  )
  writeFileSync(router, `<?php\n${defines.join('\n')}\nreturn false;\n`)
  const port = options.port ?? (await freePort())
  const url = `http://127.0.0.1:${port}`
  // Workers: an editor asks its API several things at once, and an installer may ask the site itself
  // whether its links work; one PHP process would answer them one at a time.
  // Its own process group: the workers are forked children that outlive a signal to the parent alone.
  const php: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', options.docroot, router], {
    cwd: options.dir,
    env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
    stdio: 'ignore',
    detached: true,
  })
  const group = php.pid
  const stop = async () => {
    const exited =
      php.exitCode !== null || php.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => php.once('exit', resolve))
    try {
      if (group !== undefined) process.kill(-group, 'SIGTERM')
    } catch {
      // The group is gone already: nothing is left to stop.
    }
    await exited
  }
  try {
    await until(
      async () =>
        php.exitCode !== null ||
        (await fetch(`${url}${options.ready}`).then(
          () => true,
          () => false,
        )),
      { what: 'php -S to answer', timeoutMs: 20_000 },
    )
    if (php.exitCode !== null) throw new Error(`php -S exited with ${php.exitCode}`)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, stop }
}
