import type { Kysely } from 'kysely';
import type { Config, Environment } from '../../../app/config.ts';
import type { Database } from '../../../db/schema.ts';
import type { TenantScope } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../errors.ts';
import type { Logger } from '../../../observability/logger.ts';
import type { SecretBox } from '../../../secrets/secret-box.ts';
import { type CalendarConnection, CalendarConnections } from './connections.ts';
import { type GoogleFailure, googleFailure } from './google-errors.ts';
import { readIdToken } from './id-token.ts';
import { GoogleOAuth, type GrantedTokens } from './oauth-client.ts';
import { OAuthRequests } from './oauth-requests.ts';
import {
  CALENDAR_EVENTS_SCOPE,
  type GoogleSettings,
  googleSettingsFromConfig,
  missingGoogleSettings,
} from './settings.ts';

/** How a consent flow ended, as the end user's `return_url` is told (`google_calendar_error`). */
export type CallbackError =
  /** The user declined on Google's consent page. */
  | 'access_denied'
  /** The user left the calendar permission unticked. */
  | 'scope_denied'
  /** The state is unknown: forged, or from a flow long gone. */
  | 'state_invalid'
  /** The state was used already (a replayed redirect). */
  | 'state_used'
  /** The flow took longer than 10 minutes. */
  | 'state_expired'
  /** Google refused the code or its answer was unusable. */
  | 'exchange_failed'
  /** Google sent the user back with another error, or without a code. */
  | 'authorization_failed'
  /** The deployment has no Google OAuth client (any more). */
  | 'unavailable';

export interface CallbackOutcome {
  result: 'connected' | CallbackError;
  /** Where the browser goes next; null: the callback answers a page itself. */
  returnUrl: string | null;
  /** The flow's state, echoed to the return URL so the backend can match its browser. */
  state: string | undefined;
}

/**
 * Google Calendar connections of end users: consent flows (OAuth 2.0 web-server flow with
 * PKCE), the callback that stores a connection, and reading and deleting connections.
 */
export class GoogleCalendar {
  readonly #requests: OAuthRequests;
  readonly #connections: CalendarConnections;
  readonly #oauth: GoogleOAuth | null;

  constructor(
    db: Kysely<Database>,
    box: SecretBox,
    private readonly settings: GoogleSettings | null,
    private readonly logger: Logger,
    /** The `provider_auth_missing` detail when `settings` is null. */
    private readonly missingDetail: string,
  ) {
    this.#requests = new OAuthRequests(db, box);
    this.#connections = new CalendarConnections(db, box);
    this.#oauth = settings ? new GoogleOAuth(settings) : null;
  }

  /** The redirect URI configured for an environment; undefined: derive it from the request. */
  configuredRedirectUri(environment: Environment): string | undefined {
    return this.settings?.redirectUris[environment];
  }

  async createOAuthRequest(
    scope: TenantScope,
    input: { endUserId: string; returnUrl: string | null; redirectUri: string },
  ): Promise<{ authorizationUrl: string; state: string; expiresAt: string }> {
    const oauth = this.#requireOAuth();
    const { codeVerifier, codeChallenge } = await oauth.codeVerifier();
    const { state, expiresAt } = await this.#requests.create({
      scope,
      endUserId: input.endUserId,
      redirectUri: input.redirectUri,
      returnUrl: input.returnUrl,
      codeVerifier,
    });
    const authorizationUrl = oauth.authorizationUrl({
      redirectUri: input.redirectUri,
      state,
      codeChallenge,
    });
    return { authorizationUrl, state, expiresAt };
  }

  /** Handles Google's redirect back: never throws for anything the browser sent. */
  async completeCallback(query: {
    state?: string | undefined;
    code?: string | undefined;
    error?: string | undefined;
  }): Promise<CallbackOutcome> {
    if (!query.state) return { result: 'state_invalid', returnUrl: null, state: undefined };
    const check = await this.#requests.consume(query.state);
    if (check.kind === 'unknown')
      return { result: 'state_invalid', returnUrl: null, state: undefined };
    const outcome = (result: CallbackOutcome['result']): CallbackOutcome => ({
      result,
      returnUrl: check.request.returnUrl,
      state: query.state,
    });
    if (check.kind === 'used') return outcome('state_used');
    if (check.kind === 'expired') return outcome('state_expired');
    if (query.error === 'access_denied') return outcome('access_denied');
    if (query.error || !query.code) return outcome('authorization_failed');
    const oauth = this.#oauth;
    if (!oauth || !this.settings) return outcome('unavailable');
    const { request } = check;
    const log = { workspace_id: request.scope.workspaceId, environment: request.scope.environment };
    let tokens: GrantedTokens;
    try {
      tokens = await oauth.exchangeCode({
        code: query.code,
        codeVerifier: check.codeVerifier,
        redirectUri: request.redirectUri,
      });
    } catch (error) {
      const failure = googleFailure(error);
      this.#warn(log, failure, 'google calendar code exchange failed');
      // Google out of reach is not a refusal of the code.
      return outcome(failure.kind === 'unavailable' ? 'unavailable' : 'exchange_failed');
    }
    if (!tokens.scopes.includes(CALENDAR_EVENTS_SCOPE)) {
      await this.#revoke(oauth, tokens.refreshToken ?? tokens.accessToken, log);
      return outcome('scope_denied');
    }
    let account: { subject: string; email: string };
    try {
      if (!tokens.refreshToken) throw new Error('no refresh token');
      account = readIdToken(tokens.idToken ?? '', this.settings.clientId);
    } catch (error) {
      this.logger.warn(
        { ...log, reason: (error as Error).message },
        'google calendar token answer unusable',
      );
      await this.#revoke(oauth, tokens.refreshToken ?? tokens.accessToken, log);
      return outcome('exchange_failed');
    }
    const replaced = await this.#connections.save(request.scope, request.endUserId, {
      googleSubject: account.subject,
      googleEmail: account.email,
      scopes: tokens.scopes,
      refreshToken: tokens.refreshToken,
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    });
    // Revoking ends the whole grant of a Google account: only another account's is revoked.
    if (replaced?.refreshToken && replaced.googleSubject !== account.subject) {
      await this.#revoke(oauth, replaced.refreshToken, log);
    }
    this.logger.info(log, 'google calendar connected');
    return outcome('connected');
  }

  /** Reads the stored connection (also on a deployment whose Google client was removed). */
  async getConnection(scope: TenantScope, endUserId: string): Promise<CalendarConnection> {
    const connection = await this.#connections.get(scope, endUserId);
    if (!connection) throw notConnected();
    return connection;
  }

  /**
   * Deletes the connection and revokes its grant at Google, best effort: a failed
   * revocation (or a deployment without its Google client any more) is logged and the
   * connection is gone all the same, so an end user can always disconnect.
   */
  async deleteConnection(scope: TenantScope, endUserId: string): Promise<void> {
    const removed = await this.#connections.remove(scope, endUserId);
    if (!removed) throw notConnected();
    const log = { workspace_id: scope.workspaceId, environment: scope.environment };
    if (!this.#oauth || !removed.refreshToken) {
      this.logger.warn(log, 'google calendar connection deleted without revoking its grant');
      return;
    }
    await this.#revoke(this.#oauth, removed.refreshToken, log);
  }

  #requireOAuth(): GoogleOAuth {
    if (!this.#oauth) throw new ApiError('provider_auth_missing', this.missingDetail);
    return this.#oauth;
  }

  async #revoke(oauth: GoogleOAuth, token: string, log: Record<string, unknown>): Promise<void> {
    try {
      await oauth.revoke(token);
    } catch (error) {
      this.#warn(log, googleFailure(error), 'google token revocation failed');
    }
  }

  #warn(log: Record<string, unknown>, failure: GoogleFailure, message: string): void {
    this.logger.warn({ ...log, ...failure.logFields }, message);
  }
}

/** A missing connection: the detail names no id (the caller has it). */
export function notConnected(): ApiError {
  return new ApiError(
    'not_found',
    'The end user has no Google Calendar connection in this environment.',
  );
}

/** The deployment's Google Calendar service, from its configuration. */
export function googleCalendarFromConfig(deps: {
  config: Config;
  db: Kysely<Database>;
  secretBox: SecretBox;
  logger: Logger;
}): GoogleCalendar {
  return new GoogleCalendar(
    deps.db,
    deps.secretBox,
    googleSettingsFromConfig(deps.config),
    deps.logger,
    missingGoogleSettings(deps.config),
  );
}
