import type { Kysely } from 'kysely';
import { randomBase62 } from '../auth/key-format.ts';
import type { Database, ProviderAccountsTable, UpstreamProviderName } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { UpstreamAccount } from '../tts/providers/upstream-registry.ts';
import { requireWorkspace } from '../workspaces/workspaces.ts';

/** A provider account as operators see it: never the key, only its last four characters. */
export interface ProviderAccount {
  id: string;
  workspaceId: string;
  provider: UpstreamProviderName;
  label: string;
  keyLast4: string;
  createdAt: string;
  updatedAt: string;
}

/** Characters a vendor API key may contain (it travels in an HTTP header). */
const API_KEY_PATTERN = /^[\x21-\x7e]{8,512}$/;

/**
 * A workspace's own credentials at upstream vendors. Keys are sealed with the deployment's
 * {@link SecretBox} before they reach the database and are opened only to call the vendor.
 */
export class ProviderAccounts {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
  ) {}

  async create(input: {
    workspaceId: string;
    provider: UpstreamProviderName;
    label: string;
    apiKey: string;
  }): Promise<ProviderAccount> {
    const apiKey = input.apiKey.trim();
    if (!API_KEY_PATTERN.test(apiKey)) {
      throw new ApiError(
        'invalid_request',
        'The API key must be 8 to 512 visible ASCII characters without spaces.',
      );
    }
    await requireWorkspace(this.db, input.workspaceId);
    const id = `pa_${randomBase62(20)}`;
    const now = new Date().toISOString();
    await this.db
      .insertInto('provider_accounts')
      .values({
        id,
        workspace_id: input.workspaceId,
        provider: input.provider,
        label: input.label,
        api_key_ciphertext: this.box.seal(apiKey, id),
        api_key_last4: apiKey.slice(-4),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return this.get(input.workspaceId, id);
  }

  async list(workspaceId: string): Promise<ProviderAccount[]> {
    const rows = await this.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .execute();
    return rows.map(toAccount);
  }

  async get(workspaceId: string, id: string): Promise<ProviderAccount> {
    const row = await this.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No provider account ${id} in this workspace.`);
    return toAccount(row);
  }

  /** Deletes an account no voice route uses (a route never silently changes credential). */
  async remove(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    const used = await this.db
      .selectFrom('voice_routes')
      .select((eb) => eb.fn.countAll<number>().as('routes'))
      .where('provider_account_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(used.routes) > 0) {
      throw new ApiError(
        'invalid_request',
        `${used.routes} voice route(s) use this provider account; remove or move them first.`,
      );
    }
    await this.db
      .deleteFrom('provider_accounts')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .execute();
  }

  /** The credential to call the vendor with, or null when the account no longer exists. */
  async credential(id: string): Promise<UpstreamAccount | null> {
    const row = await this.db
      .selectFrom('provider_accounts')
      .select(['id', 'api_key_ciphertext', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      version: row.updated_at,
      apiKey: this.box.open(row.api_key_ciphertext, row.id),
    };
  }
}

function toAccount(row: ProviderAccountsTable): ProviderAccount {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    provider: row.provider,
    label: row.label,
    keyLast4: row.api_key_last4,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
