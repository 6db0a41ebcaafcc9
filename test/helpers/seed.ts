import { ApiKeys } from '../../src/auth/api-keys.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import type { Capability } from '../../src/workspaces/capabilities.ts';
import { Workspaces } from '../../src/workspaces/workspaces.ts';
import type { TestDatabase } from './database.ts';

export interface SeededWorkspace {
  workspaceId: string;
  productionKey: string;
  productionKeyId: string;
  developmentKey: string;
  developmentKeyId: string;
}

/** Opens the test database with the service's own data layer (migrating it). */
export function openTestDatabase(database: TestDatabase): Promise<DatabaseHandle> {
  return openDatabase({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    maxConnections: 5,
  });
}

/** A workspace with a production and a development key, through the operator's domain API. */
export async function seedWorkspace(
  handle: DatabaseHandle,
  options: {
    capabilities?: Capability[];
    billingProvisioned?: boolean;
    credits?: number;
    suspended?: boolean;
  } = {},
): Promise<SeededWorkspace> {
  const workspaces = new Workspaces(handle.db);
  const workspace = await workspaces.create({
    name: 'Test workspace',
    capabilities: options.capabilities ?? ['tts', 'agents'],
    billingProvisioned: options.billingProvisioned ?? true,
    credits: options.credits ?? 1_000_000,
  });
  if (options.suspended) await workspaces.setStatus(workspace.id, 'suspended');
  const keys = new ApiKeys(handle.db);
  const production = await keys.create(workspace.id, 'production', 'tests');
  const development = await keys.create(workspace.id, 'development', 'tests');
  return {
    workspaceId: workspace.id,
    productionKey: production.key,
    productionKeyId: production.id,
    developmentKey: development.key,
    developmentKeyId: development.id,
  };
}
