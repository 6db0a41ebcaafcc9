import type { Environment } from '../../../app/config.ts';
import { requireAuth } from '../../../auth/context.ts';
import type { TenantScope } from '../../../db/tenant-scope.ts';
import { errorSchemaFor } from '../../../http/openapi-errors.ts';
import { publicHttpBase } from '../../../http/public-url.ts';
import { type AnyRoute, defineRoute } from '../../../http/route.ts';
import type { HttpRequest } from '../../../http/types.ts';
import { CALLBACK_HEADERS, callbackPage, returnLocation } from './callback-page.ts';
import type { CalendarConnection } from './connections.ts';
import {
  type CallbackQuery,
  callbackQuerySchema,
  connectionSchema,
  endUserIdSchema,
  type OAuthRequestCreateBody,
  oauthRequestCreateSchema,
  oauthRequestSchema,
} from './schemas.ts';
import { type CallbackOutcome, type GoogleCalendar, notConnected } from './service.ts';
import { CALLBACK_PATH } from './settings.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;
const TAGS = ['google-calendar'];

function scopeOf(auth: Parameters<typeof requireAuth>[0]): TenantScope {
  const caller = requireAuth(auth);
  return { workspaceId: caller.workspaceId, environment: caller.environment };
}

/**
 * The path's end user id; one that is no UUID has no connection (creating one needs a
 * UUID), so it is `not_found` like any other unknown id.
 */
function endUserIdOf(request: HttpRequest): string {
  const endUserId = request.params.endUserId ?? '';
  if (!endUserIdSchema.safeParse(endUserId).success) {
    throw notConnected();
  }
  return endUserId.toLowerCase();
}

function connectionBody(connection: CalendarConnection) {
  return {
    end_user_id: connection.endUserId,
    google_email: connection.googleEmail,
    scopes: connection.scopes,
    status: connection.status,
    connected_at: connection.connectedAt,
  };
}

/**
 * `/v1/google-calendar`: a backend starts a consent flow for one of its end users, Google
 * sends the end user's browser back to the public callback, and the backend reads or
 * deletes the connection. `publicBaseUrls` derive the callback's URL when no redirect URI
 * is configured (else the request's Host).
 */
export function googleCalendarRoutes(
  calendar: GoogleCalendar,
  publicBaseUrls: Partial<Record<Environment, string>>,
): AnyRoute[] {
  return [
    defineRoute<OAuthRequestCreateBody>({
      method: 'POST',
      path: '/v1/google-calendar/oauth-requests',
      operationId: 'createGoogleCalendarOAuthRequest',
      summary:
        "Start connecting an end user's Google Calendar: send the browser to `authorization_url` (valid 10 minutes, once). A new connection replaces the end user's earlier one.",
      tags: TAGS,
      auth: AUTH,
      body: oauthRequestCreateSchema,
      errors: ['provider_auth_missing'],
      responses: {
        201: {
          description: 'The consent flow.',
          schema: oauthRequestSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ auth, body, request }) => {
        const scope = scopeOf(auth);
        const redirectUri =
          calendar.configuredRedirectUri(scope.environment) ??
          `${publicHttpBase(request, publicBaseUrls[scope.environment])}${CALLBACK_PATH}`;
        const flow = await calendar.createOAuthRequest(scope, {
          endUserId: body.end_user_id.toLowerCase(),
          returnUrl: body.return_url ?? null,
          redirectUri,
        });
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: {
            authorization_url: flow.authorizationUrl,
            state: flow.state,
            expires_at: flow.expiresAt,
          },
        };
      },
    }),
    defineRoute<undefined, CallbackQuery>({
      method: 'GET',
      path: CALLBACK_PATH,
      operationId: 'completeGoogleCalendarOAuth',
      summary:
        "Google's redirect back after consent (public; the browser arrives here, never your backend). Stores the connection, then sends the browser to the flow's `return_url` (303) or answers a small page. A state is good once and for 10 minutes. Google sends `code` (consent) or `error` (refusal) with the state; a callback with neither is 400 `invalid_request`. Without `return_url`: 200 connected; 403 when access was not granted (declined, an error from Google, the calendar scope left out, or the code refused at exchange); 409 when the state was used or expired; 404 for a state the service did not issue; 503 when Google cannot be reached.",
      tags: TAGS,
      auth: { kind: 'none' },
      query: callbackQuerySchema,
      responses: {
        200: {
          description: 'Connected; the flow named no `return_url`.',
          contentType: 'text/html',
        },
        303: {
          description:
            'To the flow’s `return_url`, with `google_calendar=connected` or `google_calendar=error&google_calendar_error=CODE` (`access_denied`, `scope_denied`, `state_used`, `state_expired`, `exchange_failed`, `authorization_failed`, `unavailable`) and `google_calendar_state`.',
          headers: { Location: 'The return URL with the outcome.' },
        },
        400: {
          description:
            'A query outside the documented one (an empty value, neither `code` nor `error`): the error object.',
          schema: errorSchemaFor(['invalid_request']),
        },
        403: {
          description:
            'Not connected, and no `return_url` to go to: access was not granted (declined at Google, an error from Google, the calendar scope left out, or the code refused at exchange). A small page naming why.',
          contentType: 'text/html',
        },
        409: {
          description:
            'Not connected, and no `return_url` to go to: the state was used already or expired. A small page naming why.',
          contentType: 'text/html',
        },
        503: {
          description:
            'Not connected, and no `return_url` to go to: Google could not be reached, or this deployment has no Google client. A small page.',
          contentType: 'text/html',
        },
        404: {
          description:
            'A `state` the service did not issue, or none: a small page saying the link is not valid.',
          contentType: 'text/html',
        },
      },
      handle: async ({ query }) => {
        const outcome = await calendar.completeCallback(query);
        if (outcome.returnUrl) {
          return {
            status: 303,
            headers: { ...CALLBACK_HEADERS, location: returnLocation(outcome.returnUrl, outcome) },
          };
        }
        return {
          status: callbackStatus(outcome.result),
          headers: { ...CALLBACK_HEADERS, 'content-type': 'text/html; charset=utf-8' },
          body: callbackPage(outcome),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/google-calendar/connections/:endUserId',
      operationId: 'getGoogleCalendarConnection',
      summary: "An end user's Google Calendar connection in the key's environment.",
      tags: TAGS,
      auth: AUTH,
      errors: ['not_found'],
      responses: { 200: { description: 'The connection.', schema: connectionSchema } },
      handle: async ({ auth, request }) => ({
        status: 200,
        body: connectionBody(await calendar.getConnection(scopeOf(auth), endUserIdOf(request))),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/google-calendar/connections/:endUserId',
      operationId: 'deleteGoogleCalendarConnection',
      summary:
        "Disconnect an end user's Google Calendar: the grant is revoked at Google (best effort: when Google cannot be reached the connection is deleted all the same) and deleted.",
      tags: TAGS,
      auth: AUTH,
      errors: ['not_found'],
      responses: { 204: { description: 'Deleted.' } },
      handle: async ({ auth, request }) => {
        await calendar.deleteConnection(scopeOf(auth), endUserIdOf(request));
        return { status: 204 };
      },
    }),
  ];
}

/**
 * A page's status. The request is well formed in every case (a malformed one never gets
 * here): what failed is the authorization (403), the flow's state (409: used or expired;
 * 404: never issued) or Google (503).
 */
const CALLBACK_STATUS: Record<CallbackOutcome['result'], number> = {
  connected: 200,
  access_denied: 403,
  scope_denied: 403,
  authorization_failed: 403,
  exchange_failed: 403,
  state_invalid: 404,
  state_used: 409,
  state_expired: 409,
  unavailable: 503,
};

function callbackStatus(result: CallbackOutcome['result']): number {
  return CALLBACK_STATUS[result];
}
