import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { ResolvedKey } from '../auth/key-store.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';

/** Validity of an Agent session token (the spec's 15 minutes). */
export const AGENT_SESSION_TOKEN_TTL_MS = 15 * 60 * 1000;

const AUDIENCE = 'awp:agent-session';
const ISSUER = 'awp';
const MAX_TOKEN_CHARS = 4096;
/** How often one process deletes the records of expired tokens. */
const PURGE_INTERVAL_MS = 60_000;

/** What a session token says, once verified and used. */
export interface AgentSessionClaims {
  /** The token's unique id (`jti`). */
  readonly tokenId: string;
  readonly agentId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  /** The workspace key that minted the token; the token dies with it. */
  readonly keyId: string;
  /** The caller's end user, when the token was minted for one. */
  readonly endUserId: string | undefined;
  readonly expiresAt: Date;
}

export interface AgentSessionTokenOptions {
  /** HMAC secret shared by every api process (`TOKEN_SIGNING_SECRET`); random when omitted. */
  secret: string | undefined;
  /** Looks up the issuing key with its account state (the api's key cache). */
  keys: { resolveById(keyId: string): Promise<ResolvedKey | null> };
  /** Clock in epoch milliseconds; tests move it. */
  now?: () => number;
}

/**
 * Agent session tokens: HS256 JWTs (audience `awp:agent-session`) bound to one Agent, its
 * workspace and environment, the issuing key and optionally an end user. A token starts
 * exactly one conversation: `consume` records its `jti` in the database, so a second use
 * fails on every api process.
 */
export class AgentSessionTokens {
  readonly #secret: Uint8Array;
  readonly #now: () => number;
  #lastPurgeMs = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: AgentSessionTokenOptions,
  ) {
    this.#secret = options.secret ? new TextEncoder().encode(options.secret) : randomBytes(32);
    this.#now = options.now ?? Date.now;
  }

  async mint(claims: {
    agentId: string;
    workspaceId: string;
    environment: Environment;
    keyId: string;
    endUserId?: string | undefined;
  }): Promise<{ token: string; expiresAt: Date }> {
    const now = this.#now();
    const expiresAtSeconds = Math.floor((now + AGENT_SESSION_TOKEN_TTL_MS) / 1000);
    const token = await new SignJWT({
      agt: claims.agentId,
      org: claims.workspaceId,
      env: claims.environment,
      ...(claims.endUserId ? { eu: claims.endUserId } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.keyId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(expiresAtSeconds)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(this.#secret);
    return { token, expiresAt: new Date(expiresAtSeconds * 1000) };
  }

  /**
   * Uses a token to start a conversation with `agentId`. Throws `401 unauthorized` when the
   * token is malformed, forged, expired, already used, or its key is revoked; `403
   * session_token_agent_mismatch` when it was minted for another Agent (the token stays
   * unused); the account errors (suspended, billing, capability) of its workspace. A token
   * of another environment than the base URL it is presented at (`environment`) is 401.
   */
  async consume(
    token: string,
    agentId: string,
    environment: Environment,
  ): Promise<AgentSessionClaims> {
    const claims = await this.check(token, agentId, environment);
    const now = this.#now();
    const inserted = await this.db
      .insertInto('agent_session_token_uses')
      .values({
        jti: claims.tokenId,
        agent_id: claims.agentId,
        expires_at: claims.expiresAt.toISOString(),
        used_at: new Date(now).toISOString(),
      })
      .onConflict((oc) => oc.column('jti').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) {
      throw new ApiError('unauthorized', 'This Agent session token was already used.');
    }
    if (now - this.#lastPurgeMs >= PURGE_INTERVAL_MS) {
      this.#lastPurgeMs = now;
      // Best effort: a failed purge is retried on a later use.
      this.purgeExpired().catch(() => {});
    }
    return claims;
  }

  /**
   * Makes a consumed token usable again: the start it was consumed for was refused for a
   * reason that is not the token's (the workspace's session limit, LiveKit down).
   */
  async release(claims: AgentSessionClaims): Promise<void> {
    await this.db
      .deleteFrom('agent_session_token_uses')
      .where('jti', '=', claims.tokenId)
      .execute();
  }

  /**
   * Every check of `consume` without using the token up: routes call it before work that
   * may still fail for reasons of the deployment, so such a failure leaves the token valid.
   */
  async check(
    token: string,
    agentId: string,
    environment: Environment,
  ): Promise<AgentSessionClaims> {
    const claims = await this.verify(token);
    if (!claims) throw new ApiError('unauthorized', 'Invalid or expired Agent session token.');
    // A key, its base URL and its streaming URL form one set: so do its tokens.
    if (claims.environment !== environment) {
      throw new ApiError(
        'unauthorized',
        `This session token belongs to the ${claims.environment} environment; use its base URL.`,
      );
    }
    if (claims.agentId !== agentId) {
      throw new ApiError(
        'session_token_agent_mismatch',
        'This session token was minted for another Agent.',
      );
    }
    const key = await this.options.keys.resolveById(claims.keyId);
    if (!key || key.workspaceId !== claims.workspaceId || key.environment !== claims.environment) {
      throw new ApiError('unauthorized', 'Invalid or expired Agent session token.');
    }
    if (key.status !== 'active') {
      throw new ApiError('unauthorized', 'The key that issued this session token was revoked.');
    }
    accountChecks(key);
    return claims;
  }

  /** Deletes records of tokens that have expired (they can no longer be presented). */
  async purgeExpired(): Promise<number> {
    const result = await this.db
      .deleteFrom('agent_session_token_uses')
      .where('expires_at', '<', new Date(this.#now()).toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  private async verify(token: string): Promise<AgentSessionClaims | undefined> {
    if (token.length > MAX_TOKEN_CHARS || token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.#secret, {
        algorithms: ['HS256'],
        audience: AUDIENCE,
        issuer: ISSUER,
        clockTolerance: 0,
        currentDate: new Date(this.#now()),
      });
      const { sub, org, env, agt, eu, exp, jti } = payload;
      if (
        typeof sub !== 'string' ||
        typeof org !== 'string' ||
        typeof agt !== 'string' ||
        typeof exp !== 'number' ||
        typeof jti !== 'string' ||
        (eu !== undefined && typeof eu !== 'string') ||
        (env !== 'production' && env !== 'development')
      ) {
        return undefined;
      }
      return {
        tokenId: jti,
        agentId: agt,
        workspaceId: org,
        environment: env,
        keyId: sub,
        endUserId: eu,
        expiresAt: new Date(exp * 1000),
      };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}

/** The workspace checks every credential goes through, in the spec's order. */
function accountChecks(key: ResolvedKey): void {
  if (key.workspaceStatus === 'suspended') {
    throw new ApiError('organization_suspended', 'The workspace is suspended.');
  }
  if (!key.billingProvisioned) {
    throw new ApiError(
      'organization_account_missing',
      'The workspace billing account is not provisioned.',
    );
  }
  if (!key.capabilities.has('agents')) {
    throw new ApiError(
      'capability_disabled',
      'The agents product is not enabled for this workspace.',
    );
  }
}
