import type { Environment } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';
import type { AuthContext } from './context.ts';
import { digestsEqual, hashApiKey, looksLikeApiKey } from './key-format.ts';
import type { ApiKeyStore } from './key-store.ts';

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
  constructor(private readonly keys: ApiKeyStore) {}

  async workspaceKey(
    authorization: string | undefined,
    environment: Environment,
    capability: Capability | undefined,
  ): Promise<AuthContext> {
    if (!authorization) {
      throw new ApiError('unauthorized', 'Missing Authorization header.');
    }
    const credential = bearerCredential(authorization);
    if (!credential) {
      throw new ApiError('unauthorized', 'Authorization must be "Bearer <API key>".');
    }
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
    if (key.organizationStatus === 'suspended') {
      throw new ApiError('organization_suspended', 'The workspace is suspended.');
    }
    if (!key.billingProvisioned) {
      throw new ApiError(
        'organization_account_missing',
        'The workspace billing account is not provisioned.',
      );
    }
    if (capability && !key.capabilities.has(capability)) {
      throw new ApiError(
        'capability_disabled',
        `The ${capability} product is not enabled for this workspace.`,
      );
    }
    this.keys.markUsed(key.id);
    return {
      credential: 'api_key',
      keyId: key.id,
      organizationId: key.organizationId,
      environment: key.environment,
      capabilities: key.capabilities,
    };
  }
}
