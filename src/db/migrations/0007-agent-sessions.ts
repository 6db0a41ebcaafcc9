import { type Kysely, sql } from 'kysely';

/**
 * Live Agent sessions (WebRTC conversations run by the agent worker) and their persisted
 * transcript turns. Message ids are minted by the worker, so a retried insert is a no-op.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('end_user_id', 'text')
    .addColumn('publication_id', 'text', (c) => c.notNull())
    // The published snapshot the session runs, with overrides and context, as JSON.
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('overrides', 'text')
    .addColumn('session_context', 'text')
    .addColumn('room', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('session_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('llm_input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('llm_output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('llm_millicredits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tts_chars', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stt_ms', 'integer', (c) => c.notNull().defaultTo(0))
    /** What the session debited beyond the TTS ledger (session time, LLM, STT). */
    .addColumn('charged_millicredits', 'integer', (c) => c.notNull().defaultTo(0))
    .addCheckConstraint(
      'agent_sessions_state',
      sql`state in ('connecting', 'active', 'ended', 'failed')`,
    )
    .execute();
  await db.schema
    .createIndex('agent_sessions_workspace')
    .on('agent_sessions')
    .columns(['workspace_id', 'environment', 'created_at'])
    .execute();

  await db.schema
    .createTable('agent_session_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) =>
      c.notNull().references('agent_sessions.id').onDelete('cascade'),
    )
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('interrupted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('agent_session_messages_role', sql`role in ('user', 'agent')`)
    .execute();
  await db.schema
    .createIndex('agent_session_messages_session')
    .on('agent_session_messages')
    .columns(['session_id', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_session_messages').execute();
  await db.schema.dropTable('agent_sessions').execute();
}
