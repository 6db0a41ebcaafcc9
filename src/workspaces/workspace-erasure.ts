import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { AudioStore } from '../storage/audio-store.ts';
import { requireWorkspace } from './workspaces.ts';

/** What erasing a workspace removed. */
export interface WorkspaceErasure {
  workspaceId: string;
  /** Objects deleted from the stores: request audio, recordings, generations, samples. */
  objects: number;
}

/**
 * Erases a workspace: first it is suspended, so no request of its keys or members starts
 * new work; then every object its id prefixes is deleted from each store (the audio store
 * holds request audio, Playground generations and session recordings, the sample store the
 * voice recordings, all under `{workspaceId}/`); then its rows, in one transaction. The
 * synthesis ledger is the one table whose rows do not follow the workspace by a cascade.
 * A failure part way leaves a suspended workspace that the same call finishes erasing.
 */
export async function eraseWorkspace(
  db: Kysely<Database>,
  stores: readonly AudioStore[],
  workspaceId: string,
): Promise<WorkspaceErasure> {
  await requireWorkspace(db, workspaceId);
  await db
    .updateTable('workspaces')
    .set({ status: 'suspended' })
    .where('id', '=', workspaceId)
    .execute();
  let objects = 0;
  for (const store of stores) {
    for (const key of await store.list(`${workspaceId}/`)) {
      if (await store.delete(key)) objects++;
    }
  }
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('synthesis_requests').where('workspace_id', '=', workspaceId).execute();
    await trx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
  });
  return { workspaceId, objects };
}
