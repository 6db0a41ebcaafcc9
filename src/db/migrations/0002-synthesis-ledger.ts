import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('synthesis_requests')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('audit_id', 'text', (c) => c.notNull().unique())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('voice_id', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('output_format', 'text', (c) => c.notNull())
    .addColumn('partner_session_id', 'text')
    .addColumn('context_id', 'text')
    .addColumn('chars_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('chars_synthesized', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('provider_audio_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('encoded_duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('price_millicredits_per_1k_chars', 'bigint', (c) => c.notNull())
    .addColumn('reserved_millicredits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_millicredits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('pass_through', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('audio_persisted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('audio_location', 'text')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addCheckConstraint(
      'synthesis_requests_status',
      sql`status in ('started', 'succeeded', 'failed', 'cancelled')`,
    )
    .execute();
  await db.schema
    .createIndex('synthesis_requests_organization_idx')
    .on('synthesis_requests')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('synthesis_requests_open_idx')
    .on('synthesis_requests')
    .columns(['status', 'instance_id'])
    .execute();

  await db.schema
    .createTable('service_instances')
    .addColumn('instance_id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
}
