import type { Kysely } from 'kysely';
import type { AgentSessionState, Database } from '../db/schema.ts';

/** The states in which a session runs on a job (and its job keeps a lease on it). */
export const LIVE_STATES: readonly AgentSessionState[] = ['connecting', 'active'];

/**
 * Renews the lease of the job of generation `epoch` on session `id` at `now`. False when
 * the session ended or was handed to a newer job. One statement, shared by the job's
 * store and the job's lease thread (worker/agent-session/job-lease.ts).
 */
export async function renewSessionLease(
  db: Kysely<Database>,
  id: string,
  epoch: number,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('agent_sessions')
    .set({ heartbeat_at: now.toISOString() })
    .where('id', '=', id)
    .where('state', 'in', LIVE_STATES)
    .where('job_epoch', '=', epoch)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
