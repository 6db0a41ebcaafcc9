import type { Environment } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';

/** The caller of an authenticated request, after every account check passed. */
export interface AuthContext {
  /** A permanent workspace key, or a short-lived stream token it minted. */
  readonly credential: 'api_key' | 'stream_token';
  readonly keyId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly capabilities: ReadonlySet<Capability>;
}

/** The caller of a route that requires authentication. */
export function requireAuth(auth: AuthContext | null): AuthContext {
  if (!auth) throw new ApiError('unauthorized', 'Authentication required.');
  return auth;
}
