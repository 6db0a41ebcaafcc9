import type { Kysely } from 'kysely';

/**
 * Google Calendar connections of end users. `google_calendar_oauth_requests` holds each
 * consent flow in progress: the SHA-256 of its random `state` (never the state itself),
 * the workspace, environment and end user it is bound to, the PKCE code verifier sealed
 * with the deployment's secrets key, the redirect URI the authorization request named (the
 * code exchange must repeat it), where the end user's browser goes afterwards, and when it
 * expires and was used (a state is good once). `google_calendar_connections` holds one
 * connection per workspace, environment and end user: the Google account, the scopes it
 * granted, its refresh token sealed, the last access token sealed with its expiry (so every
 * process reuses it until it expires), and whether Google still honours the grant.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('google_calendar_oauth_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('state_hash', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('end_user_id', 'text', (c) => c.notNull())
    .addColumn('code_verifier_ciphertext', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('google_calendar_oauth_requests_expiry_idx')
    .on('google_calendar_oauth_requests')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('google_calendar_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('end_user_id', 'text', (c) => c.notNull())
    .addColumn('google_subject', 'text', (c) => c.notNull())
    .addColumn('google_email', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('refresh_token_ciphertext', 'text', (c) => c.notNull())
    .addColumn('access_token_ciphertext', 'text')
    .addColumn('access_token_expires_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('google_calendar_connections_end_user_idx')
    .on('google_calendar_connections')
    .columns(['workspace_id', 'environment', 'end_user_id'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('google_calendar_connections').execute();
  await db.schema.dropTable('google_calendar_oauth_requests').execute();
}
