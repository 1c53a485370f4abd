import { execFileSync } from 'node:child_process'

/**
 * The Chromium processes this test process launched that are still running: the main browser processes
 * are its own children (Playwright spawns them).
 */
export function chromiumChildren(): number[] {
  let listing = ''
  try {
    listing = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
  } catch {
    // ps exits 1 when the process has no child at all.
  }
  return listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command]) => command?.startsWith('chrom'))
    .map(([pid]) => Number(pid))
}

/**
 * Kills (SIGKILL) every Chromium this test process launched, as a crash or an
 * out-of-memory killer would; their renderers die with them. Synchronous, so a
 * scripted model's response can do it. Returns the pids.
 */
export function killChromiumChildren(): number[] {
  const pids = chromiumChildren()
  for (const pid of pids) process.kill(pid, 'SIGKILL')
  return pids
}
