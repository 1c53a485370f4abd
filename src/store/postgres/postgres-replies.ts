import type { Sql } from 'postgres'
import { throwIfRefused } from '../fencing.ts'
import type { AbortMessage, ControlMessage, ReplyMessage } from '../shared.ts'

/**
 * What the control channel carries: ids only. A NOTIFY payload must stay under
 * 8,000 bytes, and an answer may be 20,000 characters: a reply's value is read
 * from the row recorded in the same transaction as its notice.
 */
export type ControlNotice = AbortMessage | { kind: ReplyMessage['kind']; runId: string; id: string }

/**
 * Records a reply once and tells every server, in one statement (as
 * appendEvents): recorded and told at its commit, or neither; and only while
 * the run runs (its row locked, as appendEvents does): a run another server
 * ended takes no reply (RunFencedError). Whether it was recorded now.
 */
export async function recordReply(sql: Sql, message: ReplyMessage, channel: string): Promise<boolean> {
  const value = JSON.stringify(message.kind === 'confirmation' ? message.approve : message.answer)
  const notice: ControlNotice = { kind: message.kind, runId: message.runId, id: message.id }
  const [answer] = await sql<{ running: number; told: number }[]>`WITH running AS (
      SELECT id FROM runs WHERE id = ${message.runId} AND status = 'running' FOR SHARE
    ), inserted AS (INSERT INTO replies (run_id, kind, reply_id, value)
      SELECT id, ${message.kind}, ${message.id}, ${value} FROM running ON CONFLICT DO NOTHING RETURNING 1
    ), told AS (SELECT pg_notify(${channel}, ${JSON.stringify(notice)}) FROM inserted)
    SELECT (SELECT count(*) FROM running)::int AS running, (SELECT count(*) FROM told)::int AS told`
  throwIfRefused(answer?.running ? [] : [message.runId])
  return (answer?.told ?? 0) > 0
}

/** A control notice as its message: a reply's value is read from the table it was recorded in. */
export async function messageOf(sql: Sql, notice: ControlNotice): Promise<ControlMessage | undefined> {
  if (notice.kind === 'abort') return notice
  try {
    const [row] = await sql<{ value: string }[]>`SELECT value FROM replies
      WHERE run_id = ${notice.runId} AND kind = ${notice.kind} AND reply_id = ${notice.id}`
    // Gone with its run (pruned): no one waits for it any more.
    if (!row) return undefined
    const value: unknown = JSON.parse(row.value)
    return notice.kind === 'confirmation'
      ? { ...notice, kind: 'confirmation', approve: value === true }
      : { ...notice, kind: 'answer', answer: String(value) }
  } catch {
    // The database went away between the notice and the read: the waiting run times out as it would
    // have without the notice; the reply stays recorded.
    return undefined
  }
}
