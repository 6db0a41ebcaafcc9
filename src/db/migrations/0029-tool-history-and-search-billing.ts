import type { Kysely } from 'kysely';

/**
 * Tools in text conversations: an answer keeps the tool calls its turn made and their
 * results (`conversation_messages.tool_rounds`, JSON, null when the turn called none) so
 * later turns replay them to the model; a turn's ledger row records the web searches it
 * was charged for (`llm_requests.web_searches`, `web_search_millicredits`, part of
 * `cost_millicredits`); a workspace may keep its own search key, sealed
 * (`workspace_search_keys`).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversation_messages').addColumn('tool_rounds', 'text').execute();
  await db.schema
    .alterTable('llm_requests')
    .addColumn('web_searches', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('llm_requests')
    .addColumn('web_search_millicredits', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('workspace_search_keys')
    .addColumn('workspace_id', 'text', (c) =>
      c.primaryKey().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
