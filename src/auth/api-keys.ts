import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../app/config.ts';
import type { ApiKeyStatus, Database, Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { requireWorkspace } from '../workspaces/workspaces.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './key-format.ts';

export interface ApiKeyInfo {
  id: string;
  workspaceId: string;
  environment: Environment;
  label: string;
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The member who created it in the dashboard; null: the operator tool or first start. */
  createdBy: KeyCreatorInfo | null;
}

/** Who created a key: the member and their role at that moment. */
export interface KeyCreator {
  userId: string;
  role: Role;
}

/** The creator as listings show it: with their email while the user exists. */
export interface KeyCreatorInfo extends KeyCreator {
  email: string | null;
  /** Their role in the workspace now; null when they are no longer a member. */
  currentRole: Role | null;
}

/** A new key: the only moment the full key exists outside the caller's hands. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string;
}

/** Creating, listing and revoking permanent workspace keys. Only hashes are stored. */
export class ApiKeys {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Creates a key. `creator` is the dashboard member creating it, whose role bounds what the
   * key may do (src/auth/key-permissions.ts); null for the operator tool and the first
   * start, whose keys hold every permission.
   */
  async create(
    workspaceId: string,
    environment: Environment,
    label: string,
    creator: KeyCreator | null = null,
  ): Promise<CreatedApiKey> {
    await requireWorkspace(this.db, workspaceId);
    const trimmed = label.trim();
    if (trimmed === '' || trimmed.length > 100) {
      throw new ApiError('invalid_request', 'A label of 1 to 100 characters is required.');
    }
    const key = generateApiKey();
    const row = {
      id: `key_${uuidv7().replaceAll('-', '')}`,
      workspace_id: workspaceId,
      environment,
      label: trimmed,
      display_prefix: displayPrefix(key),
      key_hash: hashApiKey(key),
      status: 'active' as const,
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
      created_by_user_id: creator?.userId ?? null,
      created_by_role: creator?.role ?? null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    const email = creator ? await this.#email(creator.userId) : null;
    return {
      ...toInfo({ ...row, creator_email: email, creator_role: creator?.role ?? null }),
      key,
    };
  }

  async list(workspaceId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.#select()
      .where('api_keys.workspace_id', '=', workspaceId)
      .orderBy('api_keys.created_at')
      .orderBy('api_keys.id')
      .execute();
    return rows.map(toInfo);
  }

  /**
   * Revokes every active key `userId` created in the workspace, one by one through
   * {@link ApiKeys.revoke}; returns them as revoked.
   */
  async revokeCreatedBy(workspaceId: string, userId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('created_by_user_id', '=', userId)
      .where('status', '=', 'active')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const revoked: ApiKeyInfo[] = [];
    for (const row of rows) revoked.push(await this.revoke(workspaceId, row.id));
    return revoked;
  }

  /**
   * Revokes a key; every api process refuses it within one second. Work already running on
   * it (open `/v1/tts/stream` and realtime transcription sockets, Agent sessions
   * minted with it) ends within seconds, whoever calls this: every api process watches the
   * state written here (`CredentialWatch`, `RevokedSessionSweep`).
   */
  async revoke(workspaceId: string, keyId: string): Promise<ApiKeyInfo> {
    const now = new Date().toISOString();
    await this.db
      .updateTable('api_keys')
      .set({ status: 'revoked', revoked_at: now })
      .where('id', '=', keyId)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    const row = await this.#select()
      .where('api_keys.id', '=', keyId)
      .where('api_keys.workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No key ${keyId} in workspace ${workspaceId}.`);
    return toInfo(row);
  }

  #select() {
    return this.db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.created_by_user_id')
      .leftJoin('memberships as creator', (join) =>
        join
          .onRef('creator.workspace_id', '=', 'api_keys.workspace_id')
          .onRef('creator.user_id', '=', 'api_keys.created_by_user_id'),
      )
      .selectAll('api_keys')
      .select(['users.email as creator_email', 'creator.role as creator_role']);
  }

  async #email(userId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirst();
    return row?.email ?? null;
  }
}

function toInfo(row: {
  id: string;
  workspace_id: string;
  environment: Environment;
  label: string;
  display_prefix: string;
  status: ApiKeyStatus;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  created_by_user_id: string | null;
  created_by_role: Role | null;
  creator_email: string | null;
  creator_role: Role | null;
}): ApiKeyInfo {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    environment: row.environment,
    label: row.label,
    prefix: row.display_prefix,
    status: row.status,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    createdBy:
      row.created_by_user_id !== null && row.created_by_role !== null
        ? {
            userId: row.created_by_user_id,
            role: row.created_by_role,
            email: row.creator_email,
            currentRole: row.creator_role,
          }
        : null,
  };
}
