import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../config.ts';
import type { ApiKeyStatus, Database } from '../db/schema.ts';
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
}

/** A new key: the only moment the full key exists outside the caller's hands. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string;
}

/** Creating, listing and revoking permanent workspace keys. Only hashes are stored. */
export class ApiKeys {
  constructor(private readonly db: Kysely<Database>) {}

  async create(
    workspaceId: string,
    environment: Environment,
    label: string,
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
    };
    await this.db.insertInto('api_keys').values(row).execute();
    return { ...toInfo(row), key };
  }

  async list(workspaceId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toInfo);
  }

  /**
   * Revokes a key; every api process refuses it within one second. Work already running on
   * it (open `/v1/tts/stream` and realtime transcription sockets, live Agent sessions
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
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No key ${keyId} in workspace ${workspaceId}.`);
    return toInfo(row);
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
  };
}
