import type { Kysely } from 'kysely';

/**
 * The input mode a live session's job last set (`push-to-talk` or `automatic`), so a job
 * that takes the session over starts in it instead of the start's default; null until a
 * job set one.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').addColumn('input_mode', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').dropColumn('input_mode').execute();
}
