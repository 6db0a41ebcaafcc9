import { type Kysely, sql } from 'kysely';

/**
 * Session recordings. An Agent's draft revisions say whether its live sessions are recorded
 * (`recording_enabled`, off unless turned on); a recorded session names its stereo Ogg Opus
 * file by its audio store key (`recording_key`, null when there is none) and how long it
 * is (`recording_duration_ms`). A partial index on the end of recorded sessions serves the
 * retention sweep without reading every session.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_revisions')
    .addColumn('recording_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('agent_sessions').addColumn('recording_key', 'text').execute();
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('recording_duration_ms', 'integer')
    .execute();
  await db.schema
    .createIndex('agent_sessions_recorded_idx')
    .on('agent_sessions')
    .column('ended_at')
    .where(sql.ref('recording_key'), 'is not', null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('agent_sessions_recorded_idx').execute();
  await db.schema.alterTable('agent_sessions').dropColumn('recording_duration_ms').execute();
  await db.schema.alterTable('agent_sessions').dropColumn('recording_key').execute();
  await db.schema.alterTable('agent_revisions').dropColumn('recording_enabled').execute();
}
