import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('api_key_ciphertext', 'text', (c) => c.notNull())
    .addColumn('api_key_last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('provider_accounts_provider', sql`provider in ('elevenlabs', 'fishaudio')`)
    .execute();
  await db.schema
    .createIndex('provider_accounts_organization_idx')
    .on('provider_accounts')
    .columns(['organization_id', 'provider'])
    .execute();

  await db.schema
    .createTable('voices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('nsfw', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('default_route_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('voices_environment', sql`environment in ('production', 'development')`)
    .execute();
  await db.schema
    .createIndex('voices_organization_idx')
    .on('voices')
    .columns(['organization_id', 'environment'])
    .execute();

  await db.schema
    .createTable('voice_routes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('voice_id', 'text', (c) => c.notNull().references('voices.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider_voice_id', 'text', (c) => c.notNull())
    .addColumn('provider_account_id', 'text', (c) => c.references('provider_accounts.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'voice_routes_state',
      sql`state in ('ready', 'cloning', 'failed', 'blocked', 'update_available')`,
    )
    .execute();
  await db.schema
    .createIndex('voice_routes_voice_idx')
    .on('voice_routes')
    .columns(['voice_id'])
    .execute();
}
