import { type Kysely, sql } from 'kysely';

/**
 * The jobs process fails running sessions whose worker went silent (so each gets its
 * `agent_session.ended` webhook event without anyone reading it); a partial index on the
 * sessions still connecting or active keeps its look from reading every session.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('agent_sessions_running_idx')
    .on('agent_sessions')
    .column('created_at')
    .where(sql.ref('state'), 'in', sql`('connecting', 'active')`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('agent_sessions_running_idx').execute();
}
