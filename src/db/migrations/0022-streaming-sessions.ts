import type { Kysely } from 'kysely';

/**
 * Streaming sessions: a client's reporting of one playback session (an app screen, a
 * call) that streams many utterances. Its speech requests are the ledger rows sent with
 * its `partner_session_id` (an index serves that lookup); the client's own playback events
 * (first audio heard, underruns, interruptions) are kept beside it, in order.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('streaming_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('partner_session_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema
    .createIndex('streaming_sessions_scope_idx')
    .on('streaming_sessions')
    .columns(['workspace_id', 'environment', 'id'])
    .execute();
  await db.schema
    .createIndex('streaming_sessions_partner_idx')
    .on('streaming_sessions')
    .columns(['workspace_id', 'environment', 'partner_session_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('streaming_session_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) =>
      c.notNull().references('streaming_sessions.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('data', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('streaming_session_events_seq_idx')
    .on('streaming_session_events')
    .columns(['session_id', 'seq'])
    .unique()
    .execute();

  await db.schema
    .createIndex('synthesis_requests_partner_session_idx')
    .on('synthesis_requests')
    .columns(['workspace_id', 'environment', 'partner_session_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('synthesis_requests_partner_session_idx').execute();
  await db.schema.dropTable('streaming_session_events').execute();
  await db.schema.dropTable('streaming_sessions').execute();
}
