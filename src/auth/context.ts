import type { Environment } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';

/** The caller of an authenticated request, after every account check passed. */
export interface AuthContext {
  /**
   * A permanent workspace key, a short-lived stream token it minted, or the agent worker
   * speaking for a live session (`agent_speech`: keyId is the key that started it).
   */
  readonly credential: 'api_key' | 'stream_token' | 'agent_speech';
  readonly keyId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly capabilities: ReadonlySet<Capability>;
  /** `agent_speech`: the live session the speech is for and charged to. */
  readonly agentSessionId?: string;
}

/** The caller of a route that requires authentication. */
export function requireAuth(auth: AuthContext | null): AuthContext {
  if (!auth) throw new ApiError('unauthorized', 'Authentication required.');
  return auth;
}
