import type { Kysely } from 'kysely';

/**
 * The Playground's History: one row per successful dashboard generation, its audio in the
 * audio store under `object_key`. `voice_id` has no foreign key: built-in voices are not
 * stored. The ledger learns who made a dashboard request (`operator_email`; such rows have
 * no API key).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('synthesis_requests').addColumn('operator_email', 'text').execute();

  await db.schema
    .createTable('voice_generations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('voice_id', 'text', (c) => c.notNull())
    .addColumn('route_id', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('output_format', 'text', (c) => c.notNull())
    .addColumn('speed', 'double precision')
    .addColumn('voice_tags', 'text')
    .addColumn('tags_skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('cost_millicredits', 'bigint', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('voice_generations_voice_idx')
    .on('voice_generations')
    .columns(['workspace_id', 'voice_id', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('voice_generations').execute();
  await db.schema.alterTable('synthesis_requests').dropColumn('operator_email').execute();
}
