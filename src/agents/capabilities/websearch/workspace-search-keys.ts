import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import type { SecretBox } from '../../../secrets/secret-box.ts';

/** A workspace's own search key as operators see it: never the key, only its end. */
export interface WorkspaceSearchKeyView {
  keyLast4: string;
  updatedAt: string;
}

/**
 * A workspace's own Brave Search key, sealed with the deployment's secrets key (the
 * workspace id as associated data, so a sealed key copied to another workspace does not
 * open). A workspace with a key searches with it, and its searches are not charged.
 */
export class WorkspaceSearchKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
  ) {}

  async set(workspaceId: string, apiKey: string): Promise<WorkspaceSearchKeyView> {
    const row = {
      workspace_id: workspaceId,
      sealed_key: this.box.seal(apiKey, workspaceId),
      updated_at: new Date().toISOString(),
    };
    await this.db
      .insertInto('workspace_search_keys')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('workspace_id')
          .doUpdateSet({ sealed_key: row.sealed_key, updated_at: row.updated_at }),
      )
      .execute();
    return { keyLast4: apiKey.slice(-4), updatedAt: row.updated_at };
  }

  async clear(workspaceId: string): Promise<void> {
    await this.db
      .deleteFrom('workspace_search_keys')
      .where('workspace_id', '=', workspaceId)
      .execute();
  }

  /** The workspace's key in clear, or null when it has none. */
  async key(workspaceId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('workspace_search_keys')
      .select('sealed_key')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return row ? this.box.open(row.sealed_key, workspaceId) : null;
  }

  async view(workspaceId: string): Promise<WorkspaceSearchKeyView | null> {
    const row = await this.db
      .selectFrom('workspace_search_keys')
      .select(['sealed_key', 'updated_at'])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      keyLast4: this.box.open(row.sealed_key, workspaceId).slice(-4),
      updatedAt: row.updated_at,
    };
  }
}
