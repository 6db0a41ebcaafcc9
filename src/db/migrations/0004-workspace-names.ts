import type { Kysely } from 'kysely';

/** Tables that carry the tenant's id. */
const TENANT_TABLES = [
  'workspace_capabilities',
  'memberships',
  'api_keys',
  'synthesis_requests',
  'provider_accounts',
  'voices',
];

/** One name for the tenant: "workspace" in tables and columns, as everywhere else. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').renameTo('workspaces').execute();
  await db.schema
    .alterTable('organization_capabilities')
    .renameTo('workspace_capabilities')
    .execute();
  for (const table of TENANT_TABLES) {
    await db.schema.alterTable(table).renameColumn('organization_id', 'workspace_id').execute();
  }
}
