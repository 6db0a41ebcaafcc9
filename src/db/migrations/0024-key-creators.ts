import type { Kysely } from 'kysely';

/**
 * Who created each API key: the member (`created_by_user_id`) and their role at that moment
 * (`created_by_role`), both null for keys made by the operator tool or the first start. A
 * key's permissions are derived from them (src/auth/key-permissions.ts), and removing a
 * member revokes the keys they created. The user id is no foreign key: a key must never
 * fall back to "no creator" (full power) because its creator's user row went away.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by_user_id', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('created_by_role', 'text').execute();
  await db.schema
    .createIndex('api_keys_creator_idx')
    .on('api_keys')
    .columns(['workspace_id', 'created_by_user_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('api_keys_creator_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_role').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_user_id').execute();
}
