import { z } from 'zod';
import { OAUTH_REQUEST_TTL_MS } from './oauth-requests.ts';

const MAX_RETURN_URL_LENGTH = 2048;

/** No `user:password@`; a value that is no URL at all is left to the URL check. */
function withoutCredentials(value: string): boolean {
  if (!URL.canParse(value)) return true;
  const url = new URL(value);
  return url.username === '' && url.password === '';
}

export const oauthRequestCreateSchema = z
  .strictObject({
    end_user_id: z.uuid().describe('Your end user (UUID) whose calendar is to be connected.'),
    return_url: z
      .url({ protocol: /^https?$/ })
      .max(MAX_RETURN_URL_LENGTH)
      .refine(withoutCredentials, { message: 'must not carry a user name or password' })
      .optional()
      .describe(
        'Absolute http(s) URL the end user’s browser is sent to (303) after Google, with `google_calendar=connected` or `google_calendar=error&google_calendar_error=CODE`, and `google_calendar_state`. Omitted: the callback answers a small page.',
      ),
  })
  .meta({ title: 'GoogleCalendarOAuthRequestCreate' });

export type OAuthRequestCreateBody = z.infer<typeof oauthRequestCreateSchema>;

export const oauthRequestSchema = z
  .object({
    authorization_url: z
      .string()
      .describe('Send the end user’s browser here: Google’s consent page for this flow.'),
    state: z
      .string()
      .describe(
        'The flow’s state, also in `authorization_url`; the callback echoes it to `return_url` as `google_calendar_state`, so your backend can check the returning browser is the one it sent.',
      ),
    expires_at: z
      .string()
      .describe(
        `The flow must be completed before this (${OAUTH_REQUEST_TTL_MS / 60_000} minutes); it works once.`,
      ),
  })
  .meta({ title: 'GoogleCalendarOAuthRequest' });

export const connectionSchema = z
  .object({
    end_user_id: z.string(),
    google_email: z.string().describe('The Google account whose calendar is connected.'),
    scopes: z.array(z.string()).describe('The OAuth scopes the end user granted.'),
    status: z
      .enum(['connected', 'reauthorization_required'])
      .describe(
        '`reauthorization_required`: Google no longer honours the grant (revoked, expired, password change); start a new OAuth request.',
      ),
    connected_at: z.string(),
  })
  .meta({ title: 'GoogleCalendarConnection' });

/**
 * Google's redirect back: `code` on consent or `error` on refusal (RFC 6749 4.1.2), with the
 * state. Google may add parameters of its own, which are ignored.
 */
export const callbackQuerySchema = z
  .looseObject({
    state: z.string().min(1).optional().describe('The flow’s state.'),
    code: z.string().min(1).optional().describe('The authorization code, on consent.'),
    error: z.string().min(1).optional().describe('Why there is no code (`access_denied`, ...).'),
    scope: z.string().min(1).optional().describe('The scopes granted.'),
  })
  .refine((query) => query.code !== undefined || query.error !== undefined, {
    message: 'Google sends code (consent) or error (refusal)',
  })
  // For the document: the query as one object, so it can say "code or error".
  .meta({
    title: 'GoogleCalendarOAuthCallback',
    anyOf: [{ required: ['code'] }, { required: ['error'] }],
  });

export type CallbackQuery = z.infer<typeof callbackQuerySchema>;

export const endUserIdSchema = z.uuid();
