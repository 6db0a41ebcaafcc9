import type { Config, Environment } from '../../../app/config.ts';

/** Path of the public route Google sends the end user's browser back to. */
export const CALLBACK_PATH = '/v1/google-calendar/oauth/callback';

/** The Calendar scope connections need: read and write events of the user's calendars. */
export const CALENDAR_EVENTS_SCOPE = 'https://www.googleapis.com/auth/calendar.events';

/** What a consent flow asks for: calendar events, and who the Google account is. */
export const REQUESTED_SCOPES = [CALENDAR_EVENTS_SCOPE, 'openid', 'email'] as const;

/** How the deployment reaches Google, from its configuration. */
export interface GoogleSettings {
  clientId: string;
  /** Never logged. */
  clientSecret: string;
  /** Redirect URIs configured (explicitly, or from the public base URL) per environment. */
  redirectUris: Partial<Record<Environment, string>>;
  authorizationUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  /** Root of Google's APIs (`https://www.googleapis.com/`). */
  calendarApiUrl: string;
  timeoutMs: number;
}

/** The deployment's Google settings; null when no OAuth client is configured. */
export function googleSettingsFromConfig(config: Config): GoogleSettings | null {
  if (!config.GOOGLE_OAUTH_CLIENT_ID || !config.GOOGLE_OAUTH_CLIENT_SECRET) return null;
  const fromBase = (base: string | undefined) =>
    base ? `${base.replace(/\/+$/, '')}${CALLBACK_PATH}` : undefined;
  const production = config.GOOGLE_OAUTH_REDIRECT_URI ?? fromBase(config.PUBLIC_BASE_URL);
  const development = config.GOOGLE_OAUTH_DEV_REDIRECT_URI ?? fromBase(config.PUBLIC_DEV_BASE_URL);
  return {
    clientId: config.GOOGLE_OAUTH_CLIENT_ID,
    clientSecret: config.GOOGLE_OAUTH_CLIENT_SECRET,
    redirectUris: {
      ...(production ? { production } : {}),
      ...(development ? { development } : {}),
    },
    authorizationUrl: config.GOOGLE_OAUTH_AUTHORIZATION_URL,
    tokenUrl: config.GOOGLE_OAUTH_TOKEN_URL,
    revokeUrl: config.GOOGLE_OAUTH_REVOKE_URL,
    calendarApiUrl: config.GOOGLE_CALENDAR_API_URL,
    timeoutMs: config.GOOGLE_API_TIMEOUT_MS,
  };
}

/** Why the settings are missing, naming the variables (never their values). */
export function missingGoogleSettings(config: Config): string {
  const missing = [
    config.GOOGLE_OAUTH_CLIENT_ID ? undefined : 'GOOGLE_OAUTH_CLIENT_ID',
    config.GOOGLE_OAUTH_CLIENT_SECRET ? undefined : 'GOOGLE_OAUTH_CLIENT_SECRET',
  ].filter((name) => name !== undefined);
  return `Google Calendar is not configured on this deployment (${missing.join(' and ')} unset).`;
}
