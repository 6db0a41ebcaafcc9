import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  GoogleCalendarConnection,
  GoogleCalendarOAuthRequest,
  GoogleCalendarOAuthRequestCreate,
} from '../types/google-calendar.ts';

const connectionPath = (endUserId: string) =>
  `/v1/google-calendar/connections/${encodeURIComponent(endUserId)}`;

/**
 * `/v1/google-calendar`: connect your end users' Google Calendars, so Agents with calendar
 * enabled can read their schedule and book events in conversations with them.
 */
export class GoogleCalendar {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * Starts a consent flow for one end user: send their browser to `authorization_url`
   * (valid 10 minutes, once). Google sends it back to the service, which stores the
   * connection (replacing an earlier one) and then sends it to `return_url`. Retried after
   * a network failure: a second flow is harmless, the unused one expires.
   *
   * @example
   * ```ts
   * const { authorization_url } = await client.googleCalendar.createOAuthRequest({
   *   end_user_id: user.id,
   *   return_url: 'https://app.example.com/settings/calendar',
   * });
   * response.redirect(authorization_url);
   * ```
   */
  async createOAuthRequest(
    body: GoogleCalendarOAuthRequestCreate,
    options?: RequestOptions,
  ): Promise<GoogleCalendarOAuthRequest> {
    const call = {
      method: 'POST',
      path: '/v1/google-calendar/oauth-requests',
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<GoogleCalendarOAuthRequest>(this.http, call, options)).body;
  }

  /**
   * The end user's connection; rejects with `NotFoundError` when they have none.
   *
   * @example
   * ```ts
   * const { status, google_email } = await client.googleCalendar.getConnection(user.id);
   * if (status === 'reauthorization_required') askToReconnect();
   * ```
   */
  async getConnection(
    endUserId: string,
    options?: RequestOptions,
  ): Promise<GoogleCalendarConnection> {
    const call = {
      method: 'GET',
      path: connectionPath(endUserId),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<GoogleCalendarConnection>(this.http, call, options)).body;
  }

  /**
   * Disconnects the end user's calendar: the grant is revoked at Google (best effort) and
   * the connection deleted. Rejects with `NotFoundError` when there is none.
   *
   * @example
   * ```ts
   * await client.googleCalendar.deleteConnection(user.id);
   * ```
   */
  async deleteConnection(endUserId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: connectionPath(endUserId),
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }
}
