import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiKeys, type CreatedApiKey } from '../auth/api-keys.ts';
import type { Database } from '../db/schema.ts';
import { setMemberPassword } from '../operator/operator-sessions.ts';
import { CAPABILITIES } from './capabilities.ts';
import { Members } from './members.ts';
import { Workspaces } from './workspaces.ts';

export interface BootstrapResult {
  workspaceId: string;
  productionKey: CreatedApiKey;
  developmentKey: CreatedApiKey;
  /** The owner who signs in to the operator dashboard, and their generated password. */
  owner: { email: string; password: string };
}

/** The member a fresh install signs in to the dashboard as. */
export const BOOTSTRAP_OWNER_EMAIL = 'owner@localhost';

/** The `deployment_settings` row naming the workspace the bootstrap created. */
export const BOOTSTRAP_WORKSPACE_SETTING = 'bootstrap_workspace_id';

/** The workspace the bootstrap created on this deployment, if it ran. */
export async function bootstrapWorkspaceId(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('deployment_settings')
    .select('value')
    .where('name', '=', BOOTSTRAP_WORKSPACE_SETTING)
    .executeTakeFirst();
  return row?.value;
}

/** Credits given to the first workspace of a fresh single-node install. */
const STARTER_CREDITS = 100_000;

/**
 * On a fresh database, creates a ready-to-use development workspace (every capability,
 * billing provisioned, starter credit, an owner with a dashboard password) with a production
 * and a development key.
 * Returns null when any workspace already exists.
 */
export async function bootstrapWorkspace(db: Kysely<Database>): Promise<BootstrapResult | null> {
  const existing = await db.selectFrom('workspaces').select('id').limit(1).execute();
  if (existing.length > 0) return null;
  const workspace = await new Workspaces(db).create({
    name: 'Development workspace',
    capabilities: [...CAPABILITIES],
    billingProvisioned: true,
    credits: STARTER_CREDITS,
  });
  await new Members(db).add(workspace.id, BOOTSTRAP_OWNER_EMAIL, 'owner');
  // Only its hash is stored; the first start's banner shows it once.
  const password = randomBytes(18).toString('base64url');
  await setMemberPassword(db, BOOTSTRAP_OWNER_EMAIL, password);
  // The demo page mints with this workspace's development key, found by this id.
  await db
    .insertInto('deployment_settings')
    .values({ name: BOOTSTRAP_WORKSPACE_SETTING, value: workspace.id })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: workspace.id }))
    .execute();
  const keys = new ApiKeys(db);
  return {
    workspaceId: workspace.id,
    owner: { email: BOOTSTRAP_OWNER_EMAIL, password },
    productionKey: await keys.create(workspace.id, 'production', 'bootstrap production'),
    developmentKey: await keys.create(workspace.id, 'development', 'bootstrap development'),
  };
}
