import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * Language-model calls that belong to no Agent (the translation preview) share the LLM
 * ledger: `agent_id` and `publication_id` of `llm_requests` may be null. PostgreSQL drops
 * the constraints; SQLite cannot, so its table is rebuilt with the same columns, checks
 * and indexes, the rows copied in order.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`alter table llm_requests alter column agent_id drop not null`.execute(db);
    await sql`alter table llm_requests alter column publication_id drop not null`.execute(db);
    return;
  }
  await db.schema
    .createTable('llm_requests_rebuilt')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('publication_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('user_message_id', 'text')
    .addColumn('assistant_message_id', 'text')
    .addColumn('llm_provider', 'text', (c) => c.notNull())
    .addColumn('llm_model', 'text', (c) => c.notNull())
    .addColumn('input_price_millicredits_per_1m', 'double precision', (c) => c.notNull())
    .addColumn('output_price_millicredits_per_1m', 'double precision', (c) => c.notNull())
    .addColumn('reserved_millicredits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_millicredits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addCheckConstraint(
      'llm_requests_status',
      sql`status in ('started', 'succeeded', 'failed', 'cancelled')`,
    )
    .execute();
  await sql`insert into llm_requests_rebuilt select * from llm_requests`.execute(db);
  await db.schema.dropTable('llm_requests').execute();
  await sql`alter table llm_requests_rebuilt rename to llm_requests`.execute(db);
  await db.schema
    .createIndex('llm_requests_workspace_idx')
    .on('llm_requests')
    .columns(['workspace_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('llm_requests_open_idx')
    .on('llm_requests')
    .columns(['status', 'instance_id'])
    .execute();
  await db.schema
    .createIndex('llm_requests_user_message_idx')
    .on('llm_requests')
    .columns(['user_message_id'])
    .execute();
  await db.schema
    .createIndex('llm_requests_one_open_turn')
    .on('llm_requests')
    .columns(['conversation_id'])
    .unique()
    .where(sql.ref('status'), '=', 'started')
    .execute();
}

export async function down(): Promise<void> {
  // Calls without an Agent could not go back into NOT NULL columns: no way down.
}
