import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Node-RED (npm `node-red`, a dev dependency) in a process of its own, on
 * 127.0.0.1 and an ephemeral port, with a throwaway user directory holding
 * `flows`: the real flow editor, for tests that drive it as a person would.
 * Its start-up is kept short and its editor quiet: no projects, no palette
 * manager, no welcome tour or telemetry prompt over the canvas.
 */

export interface NodeRedFlowNode {
  id: string
  type: string
  [property: string]: unknown
}

export interface NodeRed {
  /** http://127.0.0.1:<port>, without a trailing slash: the editor at `/`, the admin API beside it. */
  url: string
  /** The flows as Node-RED's admin API answers them now (what a deploy saved). */
  flows(): Promise<NodeRedFlowNode[]>
  close(): Promise<void>
}

/** A small flow: an inject node named Tick wired to a debug node named Show. */
export const tickFlows: NodeRedFlowNode[] = [
  { id: 'tab1', type: 'tab', label: 'Flow 1' },
  {
    id: 'inject1',
    type: 'inject',
    z: 'tab1',
    name: 'Tick',
    props: [{ p: 'payload' }],
    payload: 'hello',
    payloadType: 'str',
    repeat: '',
    once: false,
    topic: '',
    x: 180,
    y: 120,
    wires: [['debug1']],
  },
  {
    id: 'debug1',
    type: 'debug',
    z: 'tab1',
    name: 'Show',
    active: true,
    complete: 'false',
    x: 420,
    y: 120,
    wires: [],
  },
]

const redScript = createRequire(import.meta.url).resolve('node-red/red.js')

const settings = `module.exports = {
  uiHost: '127.0.0.1',
  flowFile: 'flows.json',
  flowFilePretty: true,
  credentialSecret: false,
  logging: { console: { level: 'info', metrics: false, audit: false } },
  diagnostics: { enabled: false, ui: false },
  telemetry: { enabled: false },
  externalModules: { palette: { allowInstall: false } },
  editorTheme: {
    tours: false,
    palette: { editable: false },
    projects: { enabled: false },
    codeEditor: { lib: 'ace' },
    multiplayer: { enabled: false },
  },
}
`

/** Starts Node-RED on `flows`; rejects with its output when it does not come up. */
export async function startNodeRed(flows: NodeRedFlowNode[]): Promise<NodeRed> {
  const userDir = await mkdtemp(join(tmpdir(), 'sextant-node-red-'))
  await writeFile(join(userDir, 'settings.js'), settings)
  await writeFile(join(userDir, 'flows.json'), JSON.stringify(flows))
  const child = spawn(
    process.execPath,
    [redScript, '--userDir', userDir, '--settings', join(userDir, 'settings.js'), '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_RED_ENABLE_PROJECTS: '' } },
  )
  try {
    const url = await listening(child)
    return {
      url,
      async flows() {
        const response = await fetch(`${url}/flows`, { headers: { 'Node-RED-API-Version': 'v1' } })
        if (!response.ok) throw new Error(`Node-RED's GET /flows answered ${response.status}`)
        return (await response.json()) as NodeRedFlowNode[]
      },
      close: () => stop(child, userDir),
    }
  } catch (error) {
    await stop(child, userDir)
    throw error
  }
}

/** The editor's address, from the line Node-RED prints once it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /Server now running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1]
      if (url) {
        // Kept draining, so a chatty flow never fills the pipe and stalls the editor.
        child.stdout?.off('data', read)
        child.stdout?.resume()
        resolve(url)
      }
    }
    child.stdout?.on('data', read)
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code) => reject(new Error(`Node-RED exited (${code}) before listening:\n${output}`)))
  })
}

async function stop(child: ChildProcess, userDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  }
  await rm(userDir, { recursive: true, force: true })
}
