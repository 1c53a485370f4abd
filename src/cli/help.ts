/** The CLI's help texts, and the error for a command called the wrong way. */

/** A mistake in how the CLI was called: the message, and exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const mainHelp = `Usage: sextant <command> [options]

Commands:
  run "task"          run one task in a browser and watch it step by step
  serve               start the HTTP API (POST /v1/runs streams a run as SSE)
  runs                list recorded runs, newest first
  runs show <id>      show one run and replay its events

Run "sextant <command> --help" for a command's options.
Configuration comes from environment variables (SEXTANT_MODEL, SEXTANT_BASE_URL,
SEXTANT_API_KEY, …); see the README.`

export const runHelp = `Usage: sextant run "task" [options]

Options:
  --url <url>         page to start on
  --model <name>      model as provider/model (default: SEXTANT_MODEL)
  --max-turns <n>     steps before giving up (default: SEXTANT_MAX_TURNS or 40)
  --sub-agents <n>    let the model split the task among up to n sub-agents at
                      once (1-10), each with its own browser context
  --secret <name=VAR> a secret the model types as <secret>name</secret>, its value
                      read from the environment variable VAR (repeatable)
  --json              print every event as one JSON line on stdout
  --headed            show the browser window
  -h, --help          show this help

Ctrl-C aborts the run cleanly; a second Ctrl-C quits at once.
Exit status: 0 task succeeded, 1 task failed or run stopped, 2 usage or
configuration error, 130 aborted.`

export const serveHelp = `Usage: sextant serve [options]

Options:
  --port <n>          port (default: SEXTANT_PORT or 8787)
  --host <address>    address to listen on (default: SEXTANT_HOST or 127.0.0.1);
                      any non-loopback address needs SEXTANT_API_TOKEN
  -h, --help          show this help`

export const runsHelp = `Usage: sextant runs [options]
       sextant runs show <id> [--json]

Options:
  --limit <n>         runs per page, 1-100 (default 20)
  --cursor <cursor>   the next page, as printed under the previous one
  --json              print JSON instead of a table
  -h, --help          show this help`
