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
  runs export <id>    write a run's recording, or a Playwright test of it
  replay <file|id>    replay a recording without the model (it heals changed steps)
  recording check f   validate a recording edited by hand
  eval suite.yaml     run a task suite and report what passed, steps, tokens, cost
  profiles            list, import, export or delete saved browser profiles
  mcp                 serve the MCP tools over stdio, for assistants (docs/mcp.md)

Run "sextant <command> --help" for a command's options.
Configuration comes from environment variables (SEXTANT_MODEL, SEXTANT_BASE_URL,
SEXTANT_API_KEY, …); see the README.`

/** The run's browser context flags, the same for a run and a replay (`browser` in the request). */
const browserContextHelp = `  --device <name>     browse as a Playwright device ("iPhone 15", "Pixel 7"): its
                      viewport, scale, touch and mobile layout
  --viewport <WxH>    the page's size in CSS pixels, e.g. 390x844
  --locale <tag>      the browser's language, e.g. de-DE (default en-US)
  --timezone <zone>   the time zone pages read, e.g. Europe/Berlin
  --geolocation <lat,lon>  where navigator.geolocation says the browser is
  --grant <perm>      a permission granted to pages, e.g. geolocation (repeatable)
  --color-scheme <s>  light, dark or no-preference
  --user-agent <ua>   the user agent, over the browser's own
  --header <'N: v'>   a header sent with every request (repeatable; its value is
                      kept out of events, logs and recordings)
  --ignore-https-errors  accept invalid TLS certificates (a staging server's)
  --init-script <file>  JavaScript run in every page before its own (repeatable)`

export const runHelp = `Usage: sextant run "task" [options]

Options:
  --url <url>         page to start on
  --model <name>      model as provider/model (default: SEXTANT_MODEL)
  --instructions <x>  rules of your own for this run (a site's conventions, a
                      house style), added to the system prompt: the file x
                      names, else x itself (at most 8000 characters)
  --max-turns <n>     steps before giving up (default: SEXTANT_MAX_TURNS or 40)
  --max-tokens <n>    end the run once it used this many tokens (children included)
  --max-cost <usd>    end the run once its model cost reaches this many dollars
                      (a priced model only; see SEXTANT_PRICES)
  --max-duration <t>  end the run after this long, e.g. 90s, 10m, 1h (default:
                      SEXTANT_MAX_RUN_MS, else no bound)
  --allow-domain <h>  a host the browser may reach: host, host:port or *.host
                      (repeatable; default: every host)
  --sub-agents <n>    let the model split the task among up to n sub-agents at
                      once (1-10), each with its own browser context
  --secret <name=VAR> a secret the model types as <secret>name</secret>, its value
                      read from the environment variable VAR (repeatable)
  --var <name=value>  a value for the task's {{name}}; the run's recording keeps
                      the template (repeatable)
  --output <file>     a JSON Schema for the run's data: the data is printed as
                      JSON on stdout when the run ends (the live view goes to
                      stderr; with --json it is in the done event)
  --profile <name>    start from a saved profile's cookies and storage, and save
                      them back when the task succeeds (see "sextant profiles")
  --profile-save <when>  success (default), always or never
  --proxy <url>       send the browser's traffic through this HTTP proxy
                      (http://[user:password@]host:port), behind the run's
                      network guard; its credentials are never printed or kept
${browserContextHelp}
  --trace             keep a Playwright trace of the run (npx playwright show-trace;
                      "sextant runs export <id> --format trace"); with --secret,
                      without screenshots, its snapshots scrubbed
  --video             keep a video of the run (refused with --secret)
  --har               keep a HAR of the run's traffic, secret values scrubbed
                      (default for the three: SEXTANT_ARTIFACTS)
  --traceparent <tp>  a W3C traceparent the run's OpenTelemetry trace joins
                      (default: the TRACEPARENT environment variable); traces
                      are sent when OTEL_EXPORTER_OTLP_ENDPOINT is set
  --json              print every event as one JSON line on stdout
  --headed            show the browser window
  --vision            show the model each step's screenshot (default: SEXTANT_VISION)
  --no-handover       the model may not ask a person to take over the browser
                      (hand_over: a captcha, a code)
  -h, --help          show this help

When the model asks for a person, the run waits and prints the URL of a local
viewer of the run (127.0.0.1, with a one-time token; on stderr without a
terminal): open it to see the browser live, act in it, and press Hand back (or
Enter at the terminal). SEXTANT_HANDOVER_TIMEOUT_MS bounds the wait.
Confirmations and questions are asked at the terminal and in that viewer
while it is open (the first answer counts); without a terminal, denied.
Ctrl-C aborts the run cleanly; a second Ctrl-C quits at once.
A local model (SEXTANT_BASE_URL) needs a context window that holds one step:
start Ollama with OLLAMA_CONTEXT_LENGTH=16384 (its default, 4,096 tokens on
smaller machines, cuts the prompt and the run warns context_truncated); see
docs/models.md#local-servers.
Exit status: 0 task succeeded, 1 task failed or run stopped, 2 usage or
configuration error, 130 aborted.`

export const evalHelp = `Usage: sextant eval <suite.yaml|suite.json> [options]

Options:
  --model <name>      model as provider/model; repeat the flag to compare models
                      side by side (default: SEXTANT_MODEL)
  --repeat <k>        runs per task and model (default 1): pass@1 and pass^k
  --concurrency <n>   runs at once, sharing one browser (default 1)
  --json <file>       write the full report as JSON (docs/eval.md)
  --junit <file>      write JUnit XML for CI
  --compare <file>    list regressions and improvements against an earlier --json
  --serve-fixtures    serve the suite's "fixtures" folder on 127.0.0.1 for its
                      {{fixtures}} URLs
  --headed            show the browser windows
  -h, --help          show this help

A run passes only when every check of its task holds; the model's own verdict
is reported beside it. Exit status: 0 every run passed, 1 some did not, 2 usage
or configuration error (a bad suite file names the line), 130 aborted.`

export const serveHelp = `Usage: sextant serve [options]

Serves the HTTP API under /v1 and the run viewer at / (open it in a browser).

Options:
  --port <n>          port (default: SEXTANT_PORT or 8787)
  --host <address>    address to listen on (default: SEXTANT_HOST or 127.0.0.1);
                      any non-loopback address needs SEXTANT_API_TOKEN
  -h, --help          show this help`

export const mcpHelp = `Usage: sextant mcp

Serves Sextant's MCP tools (browser_task, replay_run, list_runs, get_run) over
stdin and stdout, for assistants that start a command (docs/mcp.md). Configured
by the same environment as "sextant run": SEXTANT_MODEL, SEXTANT_MAX_TURNS,
SEXTANT_DB, … Logs go to stderr.

Options:
  -h, --help          show this help`

export const replayHelp = `Usage: sextant replay <recording.json|runId> [options]

Runs a recording again without the model: zero model calls. Where the page has
changed and a step cannot be done as recorded, the model (when one is
configured) redoes that step and the replay goes on; without one the run ends
with an error naming the step.

Options:
  --var <name=value>  a value for the recording's {{name}} (repeatable)
  --secret <name=VAR> a secret the recording types as <secret>name</secret>, read
                      from the environment variable VAR (repeatable)
  --url <url>         start here instead of the recorded start URL
  --save <file>       write this run's recording (the healed one) to a file
  --model <name>      the model that heals (default: SEXTANT_MODEL; none: no healing)
  --json              print every event as one JSON line on stdout
  --headed            show the browser window
  --instructions <x>  rules of your own for this replay's healing model, over the
                      recording's: the file x names, else x itself
${browserContextHelp}
                      (each one over the recording's; by default the replay
                      runs in the browser context the run was recorded in)
  --no-handover       a recorded hand_over step ends the replay with an error
                      naming the step, instead of waiting for a person (who acts
                      in the local viewer whose URL is printed, then hands back)
  --traceparent <tp>  a W3C traceparent the replay's OpenTelemetry trace joins
                      (default: the TRACEPARENT environment variable); traces
                      are sent when OTEL_EXPORTER_OTLP_ENDPOINT is set
  -h, --help          show this help`

export const recordingHelp = `Usage: sextant recording check <recording.json>

Validates a recording (docs/recording.md): its schema, each problem with its
place, and warnings (a variable without a default, no final done step).
Exit status: 0 valid, 1 not valid, 2 usage error.`

export const runsHelp = `Usage: sextant runs [options]
       sextant runs show <id> [--json]
       sextant runs export <id> --format recording|playwright|trace|video|har [-o file]
       sextant runs prune --older-than <age> [--json]

Options:
  --limit <n>         runs per page, 1-100 (default 20)
  --older-than <age>  prune: delete runs finished longer ago than this (30d, 12h,
                      90m, 2w), with their screenshots, downloads and artifacts
  --cursor <cursor>   the next page, as printed under the previous one
  --format <format>   export: recording (JSON, docs/recording.md), playwright
                      (a @playwright/test spec), or the run's trace (zip), video
                      (WebM, its first page's) or har, as the run kept them
  -o, --output <file> export: write to this file (default: stdout)
  --json              print JSON instead of a table
  -h, --help          show this help`

export const profilesHelp = `Usage: sextant profiles [list] [--json]
       sextant profiles import <name> <state.json>
       sextant profiles export <name> [-o file]
       sextant profiles delete <name>

Profiles are saved browser states (cookies, local storage, IndexedDB) that runs
start from with --profile (or "profile" over HTTP), kept in the store (SEXTANT_DB)
encrypted with AES-256-GCM under SEXTANT_PROFILE_KEY, else under a key file
created beside the runs folder. import takes a Playwright storage-state JSON;
export writes one (cookie values included: keep it private).

Options:
  --json              list: print JSON instead of a table
  -o, --output <file> export: write to this file (mode 0600) instead of stdout
  -h, --help          show this help`
