import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

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

/** The pid of the network service of the Chromium whose browser process is `browserPid` (a descendant of it). */
export function networkServiceOf(browserPid: number): number {
  const parents = new Map<number, number>()
  const commands = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
      commands.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'))
    } catch {
      // Gone meanwhile.
    }
  }
  const descends = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === browserPid) return true
    return false
  }
  const found = [...commands].find(
    ([pid, command]) => command.includes('--utility-sub-type=network.mojom.NetworkService') && descends(pid),
  )
  if (!found) throw new Error(`No network service under Chromium ${browserPid}.`)
  return found[0]
}
