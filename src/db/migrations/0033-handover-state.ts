import type { Kysely } from 'kysely';

/**
 * What a job that takes a live session over restores besides the transcript: the web
 * searches the session's jobs made (`web_searches`, `web_search_millicredits`, part of the
 * session's one charge, stored as they are made like `stt_ms` and `llm_millicredits`), and
 * the application backend's effective `update_context` (`context_update`, JSON: the
 * instructions it last set and every message it appended, each with the number of
 * transcript turns stored before it; null until a backend sent one).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('web_searches', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('web_search_millicredits', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('agent_sessions').addColumn('context_update', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').dropColumn('context_update').execute();
  await db.schema.alterTable('agent_sessions').dropColumn('web_search_millicredits').execute();
  await db.schema.alterTable('agent_sessions').dropColumn('web_searches').execute();
}
