import type { Kysely, Selectable } from 'kysely';
import { randomBase62 } from '../../../auth/key-format.ts';
import type {
  Database,
  GoogleCalendarConnectionStatus,
  GoogleCalendarConnectionsTable,
} from '../../../db/schema.ts';
import { inScope, type TenantScope } from '../../../db/tenant-scope.ts';
import type { SecretBox } from '../../../secrets/secret-box.ts';

/** A connection as callers see it: never its tokens. */
export interface CalendarConnection {
  endUserId: string;
  googleEmail: string;
  scopes: string[];
  status: GoogleCalendarConnectionStatus;
  connectedAt: string;
}

/** A connection with its tokens opened, for the code that calls Google. */
export interface ConnectionCredentials {
  connection: CalendarConnection;
  /** Identifies this grant: writes about it do nothing once a reconnect replaced it. */
  grant: { id: string; refreshTokenCiphertext: string };
  refreshToken: string;
  /** The cached access token and its expiry, when one is cached. */
  accessToken: { token: string; expiresAt: Date } | undefined;
}

/** What a new grant replaced. */
export interface ReplacedGrant {
  googleSubject: string;
  /** Null when it no longer opens (the deployment's secrets key changed). */
  refreshToken: string | null;
}

/**
 * End users' Google Calendar connections, one per workspace, environment and end user.
 * Tokens are sealed with the deployment's secret box; the associated data names the end
 * user's scope and the token's kind, so a sealed token copied to another row does not open.
 */
export class CalendarConnections {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(scope: TenantScope, endUserId: string): Promise<CalendarConnection | null> {
    const row = await this.#row(scope, endUserId);
    return row ? toConnection(row) : null;
  }

  /**
   * Stores a new grant for the end user, replacing an earlier connection; answers what it
   * replaced, with its refresh token opened, so the caller can revoke it.
   */
  async save(
    scope: TenantScope,
    endUserId: string,
    grant: {
      googleSubject: string;
      googleEmail: string;
      scopes: string[];
      refreshToken: string;
      accessToken: string;
      accessTokenExpiresAt: Date;
    },
  ): Promise<ReplacedGrant | null> {
    const now = this.now().toISOString();
    const key = aad(scope, endUserId);
    const values = {
      google_subject: grant.googleSubject,
      google_email: grant.googleEmail,
      scopes: grant.scopes.join(' '),
      refresh_token_ciphertext: this.box.seal(grant.refreshToken, `${key}:refresh`),
      access_token_ciphertext: this.box.seal(grant.accessToken, `${key}:access`),
      access_token_expires_at: grant.accessTokenExpiresAt.toISOString(),
      status: 'connected' as const,
      connected_at: now,
      updated_at: now,
    };
    return this.db.transaction().execute(async (trx) => {
      const previous = await trx
        .selectFrom('google_calendar_connections')
        .select(['google_subject', 'refresh_token_ciphertext'])
        .$call(inScope(scope))
        .where('end_user_id', '=', endUserId)
        .executeTakeFirst();
      await trx
        .insertInto('google_calendar_connections')
        .values({
          id: `gcc_${randomBase62(20)}`,
          workspace_id: scope.workspaceId,
          environment: scope.environment,
          end_user_id: endUserId,
          ...values,
        })
        .onConflict((conflict) =>
          conflict.columns(['workspace_id', 'environment', 'end_user_id']).doUpdateSet(values),
        )
        .execute();
      if (!previous) return null;
      return {
        googleSubject: previous.google_subject,
        refreshToken: this.#openOrNull(previous.refresh_token_ciphertext, `${key}:refresh`),
      };
    });
  }

  /**
   * Deletes the connection; answers whether there was one and its refresh token (to
   * revoke; null when it no longer opens).
   */
  async remove(
    scope: TenantScope,
    endUserId: string,
  ): Promise<{ refreshToken: string | null } | null> {
    const row = await this.#row(scope, endUserId);
    if (!row) return null;
    const result = await this.db
      .deleteFrom('google_calendar_connections')
      .where('id', '=', row.id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) !== 1) return null;
    return {
      refreshToken: this.#openOrNull(
        row.refresh_token_ciphertext,
        `${aad(scope, endUserId)}:refresh`,
      ),
    };
  }

  async credentials(scope: TenantScope, endUserId: string): Promise<ConnectionCredentials | null> {
    const row = await this.#row(scope, endUserId);
    if (!row) return null;
    const key = aad(scope, endUserId);
    const cached =
      row.access_token_ciphertext !== null && row.access_token_expires_at !== null
        ? {
            token: this.box.open(row.access_token_ciphertext, `${key}:access`),
            expiresAt: new Date(row.access_token_expires_at),
          }
        : undefined;
    return {
      connection: toConnection(row),
      grant: { id: row.id, refreshTokenCiphertext: row.refresh_token_ciphertext },
      refreshToken: this.box.open(row.refresh_token_ciphertext, `${key}:refresh`),
      accessToken: cached,
    };
  }

  /** Caches a refreshed access token, unless a reconnect replaced the grant meanwhile. */
  async storeAccessToken(
    scope: TenantScope,
    endUserId: string,
    grant: ConnectionCredentials['grant'],
    accessToken: { token: string; expiresAt: Date },
  ): Promise<void> {
    await this.db
      .updateTable('google_calendar_connections')
      .set({
        access_token_ciphertext: this.box.seal(
          accessToken.token,
          `${aad(scope, endUserId)}:access`,
        ),
        access_token_expires_at: accessToken.expiresAt.toISOString(),
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', grant.id)
      .where('refresh_token_ciphertext', '=', grant.refreshTokenCiphertext)
      .execute();
  }

  /**
   * Google no longer honours the grant (`invalid_grant`): the end user must connect again.
   * The cached access token goes too.
   */
  async markReauthorizationRequired(grant: ConnectionCredentials['grant']): Promise<void> {
    await this.db
      .updateTable('google_calendar_connections')
      .set({
        status: 'reauthorization_required',
        access_token_ciphertext: null,
        access_token_expires_at: null,
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', grant.id)
      .where('refresh_token_ciphertext', '=', grant.refreshTokenCiphertext)
      .execute();
  }

  /** A token to revoke; null when it no longer opens (the secrets key changed). */
  #openOrNull(sealed: string, key: string): string | null {
    try {
      return this.box.open(sealed, key);
    } catch {
      return null;
    }
  }

  #row(
    scope: TenantScope,
    endUserId: string,
  ): Promise<Selectable<GoogleCalendarConnectionsTable> | undefined> {
    return this.db
      .selectFrom('google_calendar_connections')
      .selectAll()
      .$call(inScope(scope))
      .where('end_user_id', '=', endUserId)
      .executeTakeFirst();
  }
}

function aad(scope: TenantScope, endUserId: string): string {
  return `google-calendar:${scope.workspaceId}:${scope.environment}:${endUserId}`;
}

function toConnection(row: Selectable<GoogleCalendarConnectionsTable>): CalendarConnection {
  return {
    endUserId: row.end_user_id,
    googleEmail: row.google_email,
    scopes: row.scopes.split(' ').filter((scope) => scope !== ''),
    status: row.status,
    connectedAt: row.connected_at,
  };
}
