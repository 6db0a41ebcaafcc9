import { type Kysely, sql } from 'kysely';

/**
 * Realtime transcription. One `transcription_sessions` row per WebSocket that sent
 * `start`: its scope, status (`active` until it ends `ended` or `failed`), the audio it
 * received, the credit it holds while active (reserved ahead of the audio, like a
 * synthesis request's characters) and what it was charged. `instance_id` names the api
 * process that runs it, so the heartbeat sweep can close a session whose process died.
 * Each final transcript segment is a row of `transcription_segments`, written as it is
 * delivered, so a session's transcript survives its connection.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transcription_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('engine', 'text', (c) => c.notNull())
    .addColumn('audio_format', 'text', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('partner_session_id', 'text')
    .addColumn('audio_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('price_millicredits_per_minute', 'integer', (c) => c.notNull())
    .addColumn('reserved_millicredits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('charged_millicredits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('audit_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema
    .createIndex('transcription_sessions_scope_idx')
    .on('transcription_sessions')
    .columns(['workspace_id', 'environment', 'started_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transcription_sessions_active_idx')
    .on('transcription_sessions')
    .column('instance_id')
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema
    .createTable('transcription_segments')
    .addColumn('session_id', 'text', (c) =>
      c.notNull().references('transcription_sessions.id').onDelete('cascade'),
    )
    .addColumn('segment_id', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('start_ms', 'integer', (c) => c.notNull())
    .addColumn('end_ms', 'integer', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('transcription_segments_pk', ['session_id', 'segment_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('transcription_segments').execute();
  await db.schema.dropTable('transcription_sessions').execute();
}
