/** Body of `POST /v1/google-calendar/oauth-requests`. */
export interface GoogleCalendarOAuthRequestCreate {
  /** Your end user (UUID) whose Google Calendar is to be connected. */
  end_user_id: string;
  /**
   * Absolute http(s) URL the end user's browser is sent to after Google, with
   * `google_calendar=connected`, or `google_calendar=error&google_calendar_error=CODE`, and
   * `google_calendar_state`. Omitted: the service answers a small page itself.
   */
  return_url?: string;
}

/** Answer of `POST /v1/google-calendar/oauth-requests`: one consent flow. */
export interface GoogleCalendarOAuthRequest {
  /** Send the end user's browser here (Google's consent page). */
  authorization_url: string;
  /**
   * The flow's state, also inside `authorization_url`; echoed to `return_url` as
   * `google_calendar_state`, so you can check the browser that comes back is the one you sent.
   */
  state: string;
  /** The flow works once, until this time (10 minutes). */
  expires_at: string;
}

/** `google_calendar_error` values on the return URL. */
export type GoogleCalendarCallbackError =
  | 'access_denied'
  | 'scope_denied'
  | 'state_used'
  | 'state_expired'
  | 'exchange_failed'
  | 'authorization_failed'
  | 'unavailable';

/** An end user's Google Calendar connection. */
export interface GoogleCalendarConnection {
  end_user_id: string;
  /** The Google account whose calendar is connected. */
  google_email: string;
  /** The OAuth scopes the end user granted. */
  scopes: string[];
  /**
   * `reauthorization_required`: Google no longer honours the grant (revoked, expired);
   * start a new OAuth request for the end user.
   */
  status: 'connected' | 'reauthorization_required';
  connected_at: string;
}
