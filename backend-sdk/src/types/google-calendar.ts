import type { RequestJson, ResponseJson } from './openapi.ts';

/** Body of `POST /v1/google-calendar/oauth-requests`: `end_user_id` and an optional `return_url`. */
export type GoogleCalendarOAuthRequestCreate = RequestJson<'createGoogleCalendarOAuthRequest'>;

/** Answer of `POST /v1/google-calendar/oauth-requests`: one consent flow. */
export type GoogleCalendarOAuthRequest = ResponseJson<'createGoogleCalendarOAuthRequest', 201>;

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
export type GoogleCalendarConnection = ResponseJson<'getGoogleCalendarConnection', 200>;
