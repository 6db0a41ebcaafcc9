import type { Kysely } from 'kysely';

/**
 * Operator sign-in: a password hash per user (scrypt, self-describing string; null until
 * `awp member set-password` sets one) and the operator sessions. A session row holds only
 * the SHA-256 of its id, so a database leak opens no session. Also: one route per provider
 * and voice, enforced by a unique index.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();
  await db.schema
    .createTable('operator_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('operator_sessions_user_idx')
    .on('operator_sessions')
    .columns(['user_id'])
    .execute();
  // Spec rule 7: a provider is attached to a voice once; the database enforces it too.
  await db.schema
    .createIndex('voice_routes_voice_provider_unique')
    .on('voice_routes')
    .columns(['voice_id', 'provider'])
    .unique()
    .execute();
}
