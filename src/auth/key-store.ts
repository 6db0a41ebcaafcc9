import type { Kysely } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { ApiKeyStatus, Database, WorkspaceStatus } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { type Capability, isCapability } from '../workspaces/capabilities.ts';
import { type KeyPermission, keyPermissions } from './key-permissions.ts';

/** A key with the account state the per-request checks need. */
export interface ResolvedKey {
  readonly id: string;
  readonly keyHash: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly status: ApiKeyStatus;
  readonly workspaceStatus: WorkspaceStatus;
  readonly billingProvisioned: boolean;
  readonly capabilities: ReadonlySet<Capability>;
  /** What the key may do, from its creator's role (src/auth/key-permissions.ts). */
  readonly permissions: ReadonlySet<KeyPermission>;
}

interface CacheEntry {
  value: Promise<ResolvedKey | null>;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * Looks keys up by hash with a short-lived cache. The cache lifetime (at most one second)
 * bounds how long a revocation or an account change made by another process goes unseen.
 * Last-used times are collected in memory and written in one batch per interval, so a
 * request never waits on a database write.
 */
export class ApiKeyStore {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsed = new Map<string, string>();
  private readonly flushTimer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: { cacheTtlMs: number; lastUsedFlushMs: number },
    private readonly logger: Logger,
  ) {
    this.flushTimer = setInterval(() => {
      this.flushLastUsed().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'writing key last-used times failed'),
      );
    }, options.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  resolve(keyHash: string): Promise<ResolvedKey | null> {
    return this.cached(keyHash, () => this.load('key_hash', keyHash));
  }

  /** The key with this id (the issuer of a short-lived token), cached like `resolve`. */
  resolveById(keyId: string): Promise<ResolvedKey | null> {
    return this.cached(`id:${keyId}`, () => this.load('id', keyId));
  }

  private cached(
    cacheKey: string,
    load: () => Promise<ResolvedKey | null>,
  ): Promise<ResolvedKey | null> {
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = load();
    if (this.options.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.evictExpired(now);
      this.cache.set(cacheKey, { value, expiresAt: now + this.options.cacheTtlMs });
      value.catch(() => this.cache.delete(cacheKey));
    }
    return value;
  }

  /** Drops cached state of a key changed by this process, so the change applies at once. */
  invalidate(keyHash?: string): void {
    if (keyHash === undefined) this.cache.clear();
    else this.cache.delete(keyHash);
  }

  markUsed(keyId: string): void {
    this.lastUsed.set(keyId, new Date().toISOString());
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed];
    this.lastUsed.clear();
    for (const [keyId, usedAt] of batch) {
      await this.db
        .updateTable('api_keys')
        .set({ last_used_at: usedAt })
        .where('id', '=', keyId)
        .execute();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }

  private evictExpired(now: number): void {
    for (const [hash, entry] of this.cache) {
      if (entry.expiresAt <= now || this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(hash);
      if (this.cache.size < MAX_CACHED_KEYS / 2) break;
    }
  }

  private async load(column: 'key_hash' | 'id', value: string): Promise<ResolvedKey | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
      .leftJoin('memberships as creator', (join) =>
        join
          .onRef('creator.workspace_id', '=', 'api_keys.workspace_id')
          .onRef('creator.user_id', '=', 'api_keys.created_by_user_id'),
      )
      .select([
        'api_keys.id',
        'api_keys.key_hash',
        'api_keys.workspace_id',
        'api_keys.environment',
        'api_keys.status',
        'workspaces.status as workspace_status',
        'workspaces.billing_provisioned',
        'api_keys.created_by_role',
        'creator.role as creator_role',
      ])
      .where(column === 'id' ? 'api_keys.id' : 'api_keys.key_hash', '=', value)
      .executeTakeFirst();
    if (!row) return null;
    const capabilityRows = await this.db
      .selectFrom('workspace_capabilities')
      .select('capability')
      .where('workspace_id', '=', row.workspace_id)
      .execute();
    return {
      id: row.id,
      keyHash: row.key_hash,
      workspaceId: row.workspace_id,
      environment: row.environment,
      status: row.status,
      workspaceStatus: row.workspace_status,
      billingProvisioned: Number(row.billing_provisioned) === 1,
      capabilities: new Set(capabilityRows.map((r) => r.capability).filter(isCapability)),
      permissions: keyPermissions(row.created_by_role, row.creator_role ?? null),
    };
  }
}
