import type { Kysely } from 'kysely';

/**
 * A live session's job holds a lease on it: `heartbeat_at` (renewed every second or so)
 * and `job_epoch`, the generation of the job that runs it. The api hands a session whose
 * lease lapsed to a new job by raising the epoch (a conditional update, so one api host
 * claims it once) and noting when (`handed_over_at`: one hand-over per lapse); a job
 * whose epoch was superseded leaves the room.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('job_epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('agent_sessions').addColumn('handed_over_at', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').dropColumn('handed_over_at').execute();
  await db.schema.alterTable('agent_sessions').dropColumn('job_epoch').execute();
}
