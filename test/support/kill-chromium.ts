import { execFileSync } from 'node:child_process'

/**
 * Kills (SIGKILL) every Chromium this test process launched, as a crash or an
 * out-of-memory killer would: the main browser processes are this process's
 * own children (Playwright spawns them), their renderers die with them.
 * Synchronous, so a scripted model's response can do it. Returns the pids.
 */
export function killChromiumChildren(): number[] {
  const listing = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  })
  const pids = listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command]) => command?.startsWith('chrom'))
    .map(([pid]) => Number(pid))
  for (const pid of pids) process.kill(pid, 'SIGKILL')
  return pids
}
