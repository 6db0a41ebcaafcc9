import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { randomBase62 } from '../../../auth/key-format.ts';
import type { Database, GoogleCalendarOAuthRequestsTable } from '../../../db/schema.ts';
import type { TenantScope } from '../../../db/tenant-scope.ts';
import type { SecretBox } from '../../../secrets/secret-box.ts';

/** How long a consent flow may take, from the request to Google's redirect back. */
export const OAUTH_REQUEST_TTL_MS = 10 * 60_000;
/** Requests are deleted this long after they expired (used or not). */
const RETENTION_AFTER_EXPIRY_MS = 24 * 60 * 60_000;

/** A consent flow in progress, as the callback needs it. */
export interface OAuthRequest {
  id: string;
  scope: TenantScope;
  endUserId: string;
  redirectUri: string;
  returnUrl: string | null;
  expiresAt: string;
}

/** What a `state` coming back from Google turned out to be. */
export type StateCheck =
  /** No flow has this state: forged, or deleted long after it expired. */
  | { kind: 'unknown' }
  /** The state was already used once (a replayed redirect). */
  | { kind: 'used'; request: OAuthRequest }
  /** Good, but past its expiry (now used up as well). */
  | { kind: 'expired'; request: OAuthRequest }
  /** Good and now used up: the code may be exchanged with this verifier. */
  | { kind: 'valid'; request: OAuthRequest; codeVerifier: string };

/**
 * Consent flows of end users. Each has a random `state` (32 bytes) that only its SHA-256 is
 * stored of, bound to a workspace, environment and end user, good once and for
 * {@link OAUTH_REQUEST_TTL_MS}, and a PKCE code verifier sealed with the deployment's
 * secret box.
 */
export class OAuthRequests {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(input: {
    scope: TenantScope;
    endUserId: string;
    redirectUri: string;
    returnUrl: string | null;
    codeVerifier: string;
  }): Promise<{ state: string; expiresAt: string }> {
    const now = this.now();
    const id = `gco_${randomBase62(20)}`;
    const state = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + OAUTH_REQUEST_TTL_MS).toISOString();
    await this.db
      .deleteFrom('google_calendar_oauth_requests')
      .where('expires_at', '<', new Date(now.getTime() - RETENTION_AFTER_EXPIRY_MS).toISOString())
      .execute();
    await this.db
      .insertInto('google_calendar_oauth_requests')
      .values({
        id,
        state_hash: stateHash(state),
        workspace_id: input.scope.workspaceId,
        environment: input.scope.environment,
        end_user_id: input.endUserId,
        code_verifier_ciphertext: this.box.seal(input.codeVerifier, id),
        redirect_uri: input.redirectUri,
        return_url: input.returnUrl,
        expires_at: expiresAt,
        created_at: now.toISOString(),
      })
      .execute();
    return { state, expiresAt };
  }

  /**
   * Looks a state up and uses it up: of two callbacks with the same state, one at most is
   * `valid`, whatever the processes they arrive at.
   */
  async consume(state: string): Promise<StateCheck> {
    const row = await this.db
      .selectFrom('google_calendar_oauth_requests')
      .selectAll()
      .where('state_hash', '=', stateHash(state))
      .executeTakeFirst();
    if (!row) return { kind: 'unknown' };
    const request = toRequest(row);
    const now = this.now();
    const result = await this.db
      .updateTable('google_calendar_oauth_requests')
      .set({ used_at: now.toISOString() })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return { kind: 'used', request };
    if (row.expires_at <= now.toISOString()) return { kind: 'expired', request };
    return {
      kind: 'valid',
      request,
      codeVerifier: this.box.open(row.code_verifier_ciphertext, row.id),
    };
  }
}

function stateHash(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

function toRequest(row: Selectable<GoogleCalendarOAuthRequestsTable>): OAuthRequest {
  return {
    id: row.id,
    scope: { workspaceId: row.workspace_id, environment: row.environment },
    endUserId: row.end_user_id,
    redirectUri: row.redirect_uri,
    returnUrl: row.return_url,
    expiresAt: row.expires_at,
  };
}
