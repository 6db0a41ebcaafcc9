import type { Environment } from '../app/config.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';
import type { KeyPermission } from './key-permissions.ts';

/** The caller of an authenticated request, after every account check passed. */
export interface AuthContext {
  /**
   * A permanent workspace key, a short-lived stream token it minted, or the agent worker
   * speaking for an Agent session (`agent_speech`: keyId is the key that started it).
   */
  readonly credential: 'api_key' | 'stream_token' | 'agent_speech';
  readonly keyId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly capabilities: ReadonlySet<Capability>;
  /** `agent_speech`: the Agent session the speech is for and charged to. */
  readonly agentSessionId?: string;
  /** What the key (or the key that minted the token) may do beyond every key's routes. */
  readonly permissions: ReadonlySet<KeyPermission>;
}

/** 403 `forbidden` unless the caller's key holds `permission`. */
export function requirePermission(auth: AuthContext, permission: KeyPermission): void {
  if (!auth.permissions.has(permission)) {
    throw new ApiError(
      'forbidden',
      `This key may not ${PERMISSION_DESCRIPTIONS[permission]}: its creator's role does not allow it.`,
    );
  }
}

const PERMISSION_DESCRIPTIONS: Record<KeyPermission, string> = {
  manage_webhooks: 'manage webhook endpoints',
  delete_agents: 'delete Agents',
  delete_recordings: 'delete recordings',
};

/** The caller of a route that requires authentication. */
export function requireAuth(auth: AuthContext | null): AuthContext {
  if (!auth) throw new ApiError('unauthorized', 'Authentication required.');
  return auth;
}
