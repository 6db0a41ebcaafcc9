import type { Generated } from 'kysely';

/** One Google consent flow of an end user, from `POST /v1/google-calendar/oauth-requests`. */
export interface GoogleCalendarOAuthRequestsTable {
  /** `gco_` and 20 base62 characters. */
  id: string;
  /** SHA-256 (hex) of the `state` sent to Google; the state itself is never stored. */
  state_hash: string;
  workspace_id: string;
  environment: 'production' | 'development';
  end_user_id: string;
  /** The PKCE code verifier, sealed with the deployment's secrets key. */
  code_verifier_ciphertext: string;
  /** The redirect URI of the authorization request; the code exchange repeats it. */
  redirect_uri: string;
  /** Where the end user's browser is sent after the callback; null: a small page. */
  return_url: string | null;
  expires_at: string;
  /** When the callback consumed the state; a state is good once. */
  used_at: Generated<string | null>;
  created_at: string;
}

export type GoogleCalendarConnectionStatus = 'connected' | 'reauthorization_required';

/** An end user's Google Calendar connection in one workspace and environment. */
export interface GoogleCalendarConnectionsTable {
  /** `gcc_` and 20 base62 characters. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  end_user_id: string;
  /** The Google account's stable id (`sub` of its ID token). */
  google_subject: string;
  google_email: string;
  /** The scopes Google granted, space separated, as its token endpoint reports them. */
  scopes: string;
  /** Sealed with the deployment's secrets key. */
  refresh_token_ciphertext: string;
  /** The last access token, sealed; null when none is cached. */
  access_token_ciphertext: Generated<string | null>;
  access_token_expires_at: Generated<string | null>;
  status: GoogleCalendarConnectionStatus;
  connected_at: string;
  updated_at: string;
}
