import { type Kysely, sql } from 'kysely';

/**
 * Managed Agents: the Agent (identity, slug, pointers), its immutable draft revisions, its
 * immutable publications, and the ids of session tokens already used.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    // Pointers into the tables below; no foreign key because those reference this table.
    .addColumn('draft_revision_id', 'text', (c) => c.notNull())
    .addColumn('draft_version', 'integer', (c) => c.notNull())
    .addColumn('active_publication_id', 'text')
    .addColumn('publication_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('agents_environment', sql`environment in ('production', 'development')`)
    .execute();
  await db.schema
    .createIndex('agents_slug_unique')
    .on('agents')
    .columns(['workspace_id', 'environment', 'slug'])
    .unique()
    .execute();

  await db.schema
    .createTable('agent_revisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('character_card', 'text', (c) => c.notNull())
    .addColumn('voice_id', 'text')
    .addColumn('avatar_id', 'text', (c) => c.notNull())
    .addColumn('llm_provider', 'text')
    .addColumn('llm_model', 'text')
    .addColumn('thinking_level', 'text', (c) => c.notNull())
    .addColumn('web_search_enabled', 'integer', (c) => c.notNull())
    .addColumn('memory_enabled', 'integer', (c) => c.notNull())
    .addColumn('calendar_enabled', 'integer', (c) => c.notNull())
    .addColumn('documents_enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_revisions_version_unique')
    .on('agent_revisions')
    .columns(['agent_id', 'version'])
    .unique()
    .execute();

  await db.schema
    .createTable('agent_publications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('revision_id', 'text', (c) => c.notNull().references('agent_revisions.id'))
    .addColumn('memory_enabled', 'integer', (c) => c.notNull())
    .addColumn('calendar_enabled', 'integer', (c) => c.notNull())
    .addColumn('documents_enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_publications_version_unique')
    .on('agent_publications')
    .columns(['agent_id', 'version'])
    .unique()
    .execute();

  await db.schema
    .createTable('agent_session_token_uses')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_session_token_uses_expiry_idx')
    .on('agent_session_token_uses')
    .columns(['expires_at'])
    .execute();
}
