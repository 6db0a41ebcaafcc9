import type { TenantScope } from '../../../db/tenant-scope.ts';
import type { Logger } from '../../../observability/logger.ts';
import type {
  CalendarConnection,
  CalendarConnections,
  ConnectionCredentials,
} from './connections.ts';
import { GoogleFailure, googleFailure } from './google-errors.ts';
import type { GoogleOAuth } from './oauth-client.ts';

/** A cached access token is refreshed when it has less than this left. */
export const ACCESS_TOKEN_MARGIN_MS = 60_000;

/** Why the end user's calendar cannot be used right now. */
export type CalendarAccessProblem =
  /** The deployment has no Google OAuth client configured. */
  | 'not_configured'
  /** The end user never connected a calendar (or disconnected it). */
  | 'not_connected'
  /** Google no longer honours the grant: the end user must connect again. */
  | 'reauthorization_required';

export class CalendarAccessError extends Error {
  constructor(readonly problem: CalendarAccessProblem) {
    super(`Google Calendar access: ${problem}`);
    this.name = 'CalendarAccessError';
  }
}

/**
 * Runs Calendar API calls as an end user. Access tokens are cached sealed on the connection
 * (so every api and worker process reuses one until it nearly expires) and refreshed with
 * the refresh token when needed; a call refused with 401 although its token looked valid
 * (revoked early) refreshes once and runs again. A refresh answered `invalid_grant` marks
 * the connection `reauthorization_required`.
 */
export class CalendarAccess {
  constructor(
    private readonly connections: CalendarConnections,
    private readonly oauth: GoogleOAuth | null,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Whether the deployment can reach Google at all. */
  get configured(): boolean {
    return this.oauth !== null;
  }

  /** The connection, without calling Google; null when the end user has none. */
  connection(scope: TenantScope, endUserId: string): Promise<CalendarConnection | null> {
    return this.connections.get(scope, endUserId);
  }

  async run<T>(
    scope: TenantScope,
    endUserId: string,
    call: (accessToken: string, connection: CalendarConnection) => Promise<T>,
  ): Promise<T> {
    const oauth = this.oauth;
    if (!oauth) throw new CalendarAccessError('not_configured');
    const credentials = await this.connections.credentials(scope, endUserId);
    if (!credentials) throw new CalendarAccessError('not_connected');
    if (credentials.connection.status === 'reauthorization_required')
      throw new CalendarAccessError('reauthorization_required');
    const cached = credentials.accessToken;
    if (cached && cached.expiresAt.getTime() - ACCESS_TOKEN_MARGIN_MS > this.now().getTime()) {
      try {
        return await call(cached.token, credentials.connection);
      } catch (error) {
        if (!(error instanceof GoogleFailure) || error.kind !== 'unauthenticated') throw error;
      }
    }
    const token = await this.#refresh(oauth, scope, endUserId, credentials);
    return call(token, credentials.connection);
  }

  async #refresh(
    oauth: GoogleOAuth,
    scope: TenantScope,
    endUserId: string,
    credentials: ConnectionCredentials,
  ): Promise<string> {
    let granted: Awaited<ReturnType<GoogleOAuth['refresh']>>;
    try {
      granted = await oauth.refresh(credentials.refreshToken);
    } catch (error) {
      const failure = googleFailure(error);
      if (failure.kind !== 'invalid_grant') throw failure;
      await this.connections.markReauthorizationRequired(credentials.grant);
      this.logger.info(
        { workspace_id: scope.workspaceId, environment: scope.environment, ...failure.logFields },
        'google calendar connection needs reauthorization',
      );
      throw new CalendarAccessError('reauthorization_required');
    }
    await this.connections.storeAccessToken(scope, endUserId, credentials.grant, {
      token: granted.accessToken,
      expiresAt: granted.accessTokenExpiresAt,
    });
    return granted.accessToken;
  }
}
