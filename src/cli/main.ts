import { enableCompileCache } from 'node:module'
// Nothing heavy here: this file's own imports load before runCli turns the compile cache on.
import { mainHelp, UsageError } from './help.ts'

/** `sextant <command> …` → the command's exit status. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv
  try {
    // Each command loads its own modules: help and usage errors answer at once.
    switch (command) {
      case 'run':
        return await (await import('./commands/run-command.ts')).runCommand(args)
      case 'serve':
        return await (await import('./commands/serve-command.ts')).serveCommand(args)
      case 'eval':
        return await (await import('./commands/eval-command.ts')).evalCommand(args)
      case 'runs':
        return await (await import('./commands/runs-command.ts')).runsCommand(args)
      case 'replay':
        return await (await import('./commands/replay-command.ts')).replayCommand(args)
      case 'mcp':
        return await (await import('./commands/mcp-command.ts')).mcpCommand(args)
      case 'profiles':
        return await (await import('./commands/profiles-command.ts')).profilesCommand(args)
      case 'recording':
        return await (await import('./commands/recording-command.ts')).recordingCommand(args)
      case undefined:
      case 'help':
      case '-h':
      case '--help':
        process.stdout.write(`${mainHelp}\n`)
        return command === undefined ? 2 : 0
      default:
        throw new UsageError(`Unknown command "${command}".`)
    }
  } catch (error) {
    // Loaded once a command failed, after the compile cache is on (config.ts brings zod and the rest).
    const { userErrorExit } = await import('./error-exit.ts')
    const code = userErrorExit(error)
    if (code === undefined) throw error
    return code
  }
}

/** Run as a program (node src/cli/main.ts or bin/sextant.js), not when imported. */
export async function runCli(): Promise<void> {
  // A command loads hundreds of modules, which Node compiles (and strips of types) anew in every process;
  // its on-disk cache halves a command's start-up. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  enableCompileCache()
  // A reader that went away (`sextant runs | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  let code: number
  try {
    code = await main(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(
      `sextant: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    code = 1
  }
  // Let buffered output reach a pipe before exiting: process.exit does not wait for it.
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.destroyed) await new Promise<void>((resolve) => stream.write('', () => resolve()))
  }
  process.exit(code)
}

if (import.meta.main) await runCli()
