import type { Kysely } from 'kysely';

/**
 * An Agent's language (BCP 47, null when unset): the language its users speak, which
 * speech recognition is told. Each draft revision keeps its own, like every other field.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_revisions').addColumn('language', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_revisions').dropColumn('language').execute();
}
