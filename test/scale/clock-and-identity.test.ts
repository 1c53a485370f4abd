import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { interruptedText } from '../../src/store/interrupted.ts'
import { json, postRun, readSse, runIdOf } from '../server/support.ts'
import { type FakeOpenAI, promptText, scriptedTurns, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { testTools } from '../support/suite/test-tools.ts'
import { until } from '../support/until.ts'
import { type ChildServer, startChildServer } from './cluster-support.ts'

// Servers in their own processes on one database: one whose clock runs 30 s behind (Debian's faketime),
// and two with the same pid on the same host (each in its own PID namespace, so both are pid 1).

const hasFaketime = testTools.faketime.present()
const hasPidNamespaces = spawnSync('unshare', ['--fork', '--pid', '--mount-proc', 'true']).status === 0
/** Longer than several leases: a sweep on the wrong clock, or by an owner taken for gone, ends the run within one. */
const severalLeasesMs = 10_000
/** Two servers start in their own processes (seconds each on a loaded machine), then wait out several leases. */
const testTimeoutMs = 120_000

let fake: FakeOpenAI
const turns = scriptedTurns()
const { script } = turns

function asked(task: string): number {
  return fake.requests.filter((request) => promptText(request).includes(task)).length
}

function env(database: string): Record<string, string> {
  return {
    SEXTANT_DB: database,
    SEXTANT_HEARTBEAT_MS: '200',
    // Twenty beats a lease: a loaded machine that stalls a server for a second does not make it lose its runs.
    SEXTANT_LEASE_MS: '4000',
    SEXTANT_BASE_URL: fake.baseUrl,
    SEXTANT_MODEL: 'fake/agent-model',
    SEXTANT_LOG_LEVEL: 'warn',
  }
}

async function statusOn(server: ChildServer, runId: string): Promise<string> {
  return (await json<{ status: string }>(await fetch(`${server.url}/v1/runs/${runId}`))).status
}

/** Starts a run on `server` that waits on the model until it is aborted; its id once the model was asked. */
async function hangingRun(server: ChildServer, task: string): Promise<string> {
  const response = await postRun(server.url, { task: script(task, { hang: true }) })
  const runId = runIdOf(response)
  void readSse(response).catch(() => {})
  await until(() => asked(task) > 0, { what: `the run "${task}" to ask the model` })
  return runId
}

describe.skipIf(!hasPostgres)('one clock and one identity among servers in their own processes', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(() => fake.close())

  test.skipIf(!hasFaketime)(
    "a server whose clock runs 30 s behind keeps its run while another sweeps: the lease is on the database's clock",
    async () => {
      const database = await createTestDatabase('clock')
      const behind = await startChildServer(env(database), ['faketime', '-f', '-30s'])
      const other = await startChildServer(env(database))
      try {
        const runId = await hangingRun(behind, 'Wait on a clock 30 s behind.')
        // The server's own clock is behind indeed: its run was created 30 s ago by the database's.
        const created = Date.parse(
          (await json<{ createdAt: string }>(await fetch(`${other.url}/v1/runs/${runId}`))).createdAt,
        )
        expect(Date.now() - created).toBeGreaterThan(20_000)

        await new Promise((resolve) => setTimeout(resolve, severalLeasesMs))
        expect(await statusOn(other, runId)).toBe('running')
        // It ends as its caller says, not as a sweep did.
        expect((await fetch(`${other.url}/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(200)
        await until(async () => (await statusOn(other, runId)) === 'stopped', { what: 'the run to stop' })
      } finally {
        await behind.close()
        await other.close()
      }
    },
    testTimeoutMs,
  )

  test.skipIf(!hasPidNamespaces)(
    'two servers with the same pid on one host are two owners: neither ends, renews or keeps the other’s run',
    async () => {
      const database = await createTestDatabase('samepid')
      const unshare = ['unshare', '--fork', '--pid', '--mount-proc', '--kill-child=SIGTERM']
      const a = await startChildServer(env(database), unshare)
      let b: ChildServer | undefined
      const reader = postgres(database, { max: 1, onnotice: () => {} })
      try {
        const runId = await hangingRun(a, 'Wait as pid 1.')
        // B starts (its start-up sweep included) and sweeps beside A: A's run is not B's, nor gone.
        b = await startChildServer(env(database), unshare)
        const onB = b
        const bRun = await hangingRun(onB, 'Wait as the other pid 1.')
        await new Promise((resolve) => setTimeout(resolve, severalLeasesMs))
        expect(await statusOn(onB, runId)).toBe('running')
        const owners = await reader<
          { id: string; owner_pid: number; owner_host: string; owner_id: string }[]
        >`
          SELECT id, owner_pid, owner_host, owner_id FROM runs WHERE id IN (${runId}, ${bRun}) ORDER BY id`
        expect(owners.map((row) => row.owner_pid)).toEqual([1, 1])
        expect(new Set(owners.map((row) => row.owner_id)).size).toBe(2)

        // A dies hard: B, which shares its pid and host name, does not keep renewing A's run as its own.
        const nodeOfA = childPidOf(a.child.pid ?? 0)
        process.kill(nodeOfA, 'SIGKILL')
        await until(async () => (await statusOn(onB, runId)) === 'failed', { what: "B to end A's run" })
        expect(await json(await fetch(`${onB.url}/v1/runs/${runId}`))).toMatchObject({
          reason: 'error',
          result: { text: interruptedText },
        })
        expect(await statusOn(onB, bRun)).toBe('running')
      } finally {
        await reader.end()
        await closeUnshared(a)
        if (b) await closeUnshared(b)
      }
    },
    testTimeoutMs,
  )
})

/** unshare --fork ignores SIGTERM itself: the server in the namespace is told, and unshare exits with it. */
async function closeUnshared(server: ChildServer): Promise<void> {
  const pid = server.child.pid
  if (pid !== undefined && server.child.exitCode === null) {
    try {
      process.kill(childPidOf(pid), 'SIGTERM')
    } catch {
      // Gone already (killed by the test).
    }
  }
  await server.close()
}

/** The pid (in this namespace) of the one child of `pid`: the server `unshare --fork` started. */
function childPidOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)
  const child = Number(children[0])
  if (!Number.isInteger(child) || child <= 0) throw new Error(`unshare (${pid}) has no child process`)
  return child
}
