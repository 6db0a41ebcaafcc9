import type { Kysely } from 'kysely';

/**
 * Facts about the deployment itself, one row per name: `bootstrap_workspace_id`, the
 * workspace the first start of a fresh install creates (the demo page mints with its
 * development key). A database bootstrapped before this table existed gets it here: the
 * bootstrap only runs on an empty database, so its workspace is the oldest one, recognised
 * by the bootstrap owner's membership.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deployment_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  const oldest = await db
    .selectFrom('workspaces')
    .select('id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!oldest) return;
  const owner = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('memberships.workspace_id')
    .where('memberships.workspace_id', '=', oldest.id)
    .where('users.email', '=', 'owner@localhost')
    .where('memberships.role', '=', 'owner')
    .executeTakeFirst();
  if (owner) {
    await db
      .insertInto('deployment_settings')
      .values({ name: 'bootstrap_workspace_id', value: oldest.id })
      .execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deployment_settings').execute();
}
