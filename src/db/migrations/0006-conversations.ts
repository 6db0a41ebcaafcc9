import { type Kysely, sql } from 'kysely';

/**
 * Text conversations with published Agents, their messages, and the language-model
 * ledger: one row per billed model call, with its credit reservation and settlement.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    // The publication that opened the conversation. No foreign key: deleting an Agent
    // removes its publications before the Agent row whose delete cascades to here.
    .addColumn('publication_id', 'text', (c) => c.notNull())
    .addColumn('end_user_id', 'text')
    .addColumn('user_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'conversations_environment',
      sql`environment in ('production', 'development')`,
    )
    .execute();
  await db.schema
    .createIndex('conversations_agent_idx')
    .on('conversations')
    .columns(['agent_id', 'end_user_id'])
    .execute();

  await db.schema
    .createTable('conversation_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('client_message_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('publication_id', 'text')
    .addColumn('llm_provider', 'text')
    .addColumn('llm_model', 'text')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('cost_millicredits', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('conversation_messages_role', sql`role in ('user', 'assistant')`)
    .execute();
  await db.schema
    .createIndex('conversation_messages_seq_unique')
    .on('conversation_messages')
    .columns(['conversation_id', 'seq'])
    .unique()
    .execute();
  // A client's message id answers once per workspace (NULLs never collide).
  await db.schema
    .createIndex('conversation_messages_client_id_unique')
    .on('conversation_messages')
    .columns(['workspace_id', 'client_message_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('llm_requests')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('publication_id', 'text', (c) => c.notNull())
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
  // One turn at a time per conversation: a second started row is refused by the index.
  await db.schema
    .createIndex('llm_requests_one_open_turn')
    .on('llm_requests')
    .columns(['conversation_id'])
    .unique()
    .where(sql.ref('status'), '=', 'started')
    .execute();
}
