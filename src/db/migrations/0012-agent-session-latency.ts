import type { Kysely } from 'kysely';

/**
 * A live session's voice latency: the worker's summary of its spoken turns (JSON of
 * `TurnLatencySummary`), rewritten after each turn it measures; null until the first.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').addColumn('latency', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_sessions').dropColumn('latency').execute();
}
