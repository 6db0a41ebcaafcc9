import type { Environment } from '../app/config.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';
import { checkAccount } from './account-checks.ts';
import type { AuthContext } from './context.ts';
import { digestsEqual, hashApiKey, looksLikeApiKey } from './key-format.ts';
import type { ApiKeyStore, ResolvedKey } from './key-store.ts';
import type { StreamTokenKind, StreamTokens } from './stream-tokens.ts';

/** The credential of an `Authorization: Bearer <credential>` header, if well formed. */
export function bearerCredential(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match?.[1];
}

/**
 * Authenticates a permanent workspace key and runs the account checks in the spec's order:
 * credential (401), suspension (403), billing account (503), capability (403).
 */
export class Authenticator {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly streamTokens?: StreamTokens,
  ) {}

  async workspaceKey(
    authorization: string | undefined,
    environment: Environment,
    capability: Capability | readonly Capability[] | undefined,
  ): Promise<AuthContext> {
    if (!authorization) {
      throw new ApiError('unauthorized', 'Missing Authorization header.');
    }
    const credential = bearerCredential(authorization);
    if (!credential) {
      throw new ApiError('unauthorized', 'Authorization must be "Bearer <API key>".');
    }
    return this.apiKey(credential, environment, capability);
  }

  /**
   * The credential of a streaming connection: a workspace key as bearer header, or a
   * short-lived token of `tokenKind` as bearer header or `token` query parameter. Same
   * account checks.
   */
  async streamCredential(
    authorization: string | undefined,
    queryToken: string | undefined,
    environment: Environment,
    capability: Capability,
    tokenKind: StreamTokenKind = 'tts',
  ): Promise<AuthContext> {
    const bearer = bearerCredential(authorization);
    if (authorization && !bearer) {
      throw new ApiError('unauthorized', 'Authorization must be "Bearer <credential>".');
    }
    if (bearer && queryToken) {
      throw new ApiError('unauthorized', 'Send one credential: a header or a token parameter.');
    }
    const credential = bearer ?? queryToken;
    if (!credential) throw new ApiError('unauthorized', 'Missing credential.');
    if (looksLikeApiKey(credential) && bearer) {
      return this.apiKey(credential, environment, capability);
    }
    const claims = await this.streamTokens?.verify(credential, tokenKind);
    if (!claims) throw new ApiError('unauthorized', 'Invalid or expired stream token.');
    const key = await this.keys.resolveById(claims.keyId);
    if (!key || key.workspaceId !== claims.workspaceId) {
      throw new ApiError('unauthorized', 'Invalid or expired stream token.');
    }
    if (key.status !== 'active') {
      throw new ApiError('unauthorized', 'The key that issued this stream token was revoked.');
    }
    if (claims.environment !== environment || key.environment !== environment) {
      throw new ApiError(
        'unauthorized',
        `This stream token belongs to the ${claims.environment} environment; use its URL.`,
      );
    }
    return this.accountChecks(key, capability, 'stream_token');
  }

  /**
   * The agent worker speaking for an Agent session: an `agent_speech` token (bearer header or
   * `token` parameter) naming the session. Undefined when the credential is not one, so
   * the caller goes on with the other credentials. Agent speech belongs to the Agents
   * product: the workspace needs `agents`, not `tts`. Whether the session still runs is
   * the caller's check.
   */
  async agentSpeech(
    authorization: string | undefined,
    queryToken: string | undefined,
    environment: Environment,
  ): Promise<AuthContext | undefined> {
    const credential = bearerCredential(authorization) ?? queryToken;
    if (!credential || looksLikeApiKey(credential)) return undefined;
    const claims = await this.streamTokens?.verify(credential, 'agent_speech');
    if (!claims?.agentSessionId) return undefined;
    const key = await this.keys.resolveById(claims.keyId);
    if (
      !key ||
      key.workspaceId !== claims.workspaceId ||
      key.status !== 'active' ||
      claims.environment !== environment ||
      key.environment !== environment
    ) {
      throw new ApiError('unauthorized', 'Invalid agent speech token.');
    }
    return {
      ...this.accountChecks(key, 'agents', 'agent_speech'),
      agentSessionId: claims.agentSessionId,
    };
  }

  private async apiKey(
    credential: string,
    environment: Environment,
    capability: Capability | readonly Capability[] | undefined,
  ): Promise<AuthContext> {
    if (!looksLikeApiKey(credential)) {
      throw new ApiError('unauthorized', 'A workspace API key (awp_...) is required.');
    }
    const hash = hashApiKey(credential);
    const key = await this.keys.resolve(hash);
    if (!key || !digestsEqual(hash, key.keyHash)) {
      throw new ApiError('unauthorized', 'Unknown API key.');
    }
    if (key.status !== 'active') {
      throw new ApiError('unauthorized', 'This API key has been revoked.');
    }
    if (key.environment !== environment) {
      throw new ApiError(
        'unauthorized',
        `This API key belongs to the ${key.environment} environment; use its base URL.`,
      );
    }
    return this.accountChecks(key, capability, 'api_key');
  }

  private accountChecks(
    key: ResolvedKey,
    capability: Capability | readonly Capability[] | undefined,
    credential: AuthContext['credential'],
  ): AuthContext {
    checkAccount(key, capability);
    this.keys.markUsed(key.id);
    return {
      credential,
      keyId: key.id,
      workspaceId: key.workspaceId,
      environment: key.environment,
      capabilities: key.capabilities,
      permissions: key.permissions,
    };
  }
}
