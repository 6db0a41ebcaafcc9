import { type Kysely, sql } from 'kysely';

/**
 * Voice cloning: source samples, the clone-attempt history, and the route fields cloning
 * needs (capabilities, formats, built-from samples, failure and block details). One route
 * per provider and voice is enforced by 0010's unique index.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of [
    'capabilities',
    'output_formats',
    'sample_ids',
    'failure_summary',
    'failure_detail',
    'blocked_by',
  ]) {
    await db.schema.alterTable('voice_routes').addColumn(column, 'text').execute();
  }

  await db.schema
    .createTable('voice_samples')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('voice_id', 'text', (c) => c.notNull().references('voices.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('sample_rate_hz', 'integer', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('transcript', 'text', (c) => c.notNull())
    .addColumn('permission_confirmed_by', 'text', (c) => c.notNull())
    .addColumn('permission_confirmed_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('voice_samples_voice_idx')
    .on('voice_samples')
    .columns(['voice_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('voice_clone_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('voice_id', 'text', (c) => c.notNull().references('voices.id').onDelete('cascade'))
    .addColumn('route_id', 'text', (c) =>
      c.notNull().references('voice_routes.id').onDelete('cascade'),
    )
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('sample_ids', 'text', (c) => c.notNull())
    .addColumn('vendor_name', 'text', (c) => c.notNull())
    .addColumn('vendor_request_at', 'text')
    .addColumn('provider_voice_id', 'text')
    .addColumn('failure_summary', 'text')
    .addColumn('failure_detail', 'text')
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addCheckConstraint(
      'voice_clone_attempts_operation',
      sql`operation in ('create', 'append', 'rebuild', 'derive')`,
    )
    .addCheckConstraint(
      'voice_clone_attempts_state',
      sql`state in ('queued', 'running', 'succeeded', 'failed')`,
    )
    .execute();
  await db.schema
    .createIndex('voice_clone_attempts_voice_idx')
    .on('voice_clone_attempts')
    .columns(['voice_id', 'created_at'])
    .execute();
}
