import { spawn } from 'node:child_process'

/**
 * A virtual X display (Debian's Xvfb) for a headed Chromium on a server with
 * no screen: a headed browser has none of headless mode's tells, and sites
 * that turn headless browsers away let it in. Xvfb picks a free display
 * itself and writes its number to a pipe (`-displayfd`), so two servers on
 * one machine never race for `:99`.
 */
export interface VirtualDisplay {
  /** The DISPLAY value, `:N`. */
  name: string
  close(): Promise<void>
}

export class VirtualDisplayError extends Error {
  override name = 'VirtualDisplayError'
}

export async function startVirtualDisplay(timeoutMs: number): Promise<VirtualDisplay> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1080x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => xvfb.once('exit', () => resolve()))
  const close = async () => {
    // Never started (no Xvfb binary): there is no process to wait for.
    if (xvfb.pid === undefined) return
    if (xvfb.exitCode === null && xvfb.signalCode === null) xvfb.kill('SIGTERM')
    await exited
  }
  let stderr = ''
  xvfb.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000)
  })
  try {
    const number = await new Promise<string>((resolve, reject) => {
      let written = ''
      const timer = setTimeout(
        () => reject(new VirtualDisplayError(`Xvfb did not start in ${timeoutMs} ms.`)),
        timeoutMs,
      )
      xvfb.stdio[3]?.on('data', (chunk: Buffer) => {
        written += chunk.toString()
        if (written.includes('\n')) {
          clearTimeout(timer)
          resolve(written.trim())
        }
      })
      xvfb.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer)
        reject(
          new VirtualDisplayError(
            error.code === 'ENOENT'
              ? "SEXTANT_HEADED=virtual needs Xvfb: install it ('apt-get install xvfb' on Debian/Ubuntu)."
              : `Xvfb could not start: ${error.message}`,
          ),
        )
      })
      xvfb.once('exit', (code) => {
        clearTimeout(timer)
        reject(
          new VirtualDisplayError(`Xvfb exited (${code}) before its display was ready: ${stderr.trim()}`),
        )
      })
    })
    return { name: `:${number}`, close }
  } catch (error) {
    await close()
    throw error
  }
}
