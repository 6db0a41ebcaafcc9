/**
 * Why a request to Google failed, as the calendar code decides on it. Built from the status
 * and the error code in Google's answer only: the client libraries' own errors carry the
 * request (form bodies with codes, refresh tokens and the client secret), so they are
 * never kept, logged or passed on.
 */
export type GoogleFailureKind =
  /** The token endpoint refused a code or refresh token (`invalid_grant`): consent is gone. */
  | 'invalid_grant'
  /** The access token was refused (401): refresh and try once more. */
  | 'unauthenticated'
  /** Quota or rate limits (403 `rateLimitExceeded` / `userRateLimitExceeded`, 429). */
  | 'rate_limited'
  /** The addressed event or calendar does not exist (404). */
  | 'not_found'
  /** The request was refused for another reason (other 4xx: bad input, forbidden). */
  | 'rejected'
  /** Google could not be reached, timed out, or failed (5xx). */
  | 'unavailable';

export class GoogleFailure extends Error {
  constructor(
    readonly kind: GoogleFailureKind,
    /** HTTP status of Google's answer; undefined when none came. */
    readonly status: number | undefined,
    /** Google's error code (`invalid_grant`, `rateLimitExceeded`, ...), when it gave one. */
    readonly reason: string | undefined,
    /** Google's human-readable message (Calendar API errors), when it gave one. */
    readonly googleMessage: string | undefined,
  ) {
    super(
      `Google answered ${status ?? 'nothing'}${reason ? ` (${reason})` : ''}${googleMessage ? `: ${googleMessage}` : ''}`,
    );
    this.name = 'GoogleFailure';
  }

  /** Safe to log: status and Google's error code, nothing of the request. */
  get logFields(): { google_status: number | undefined; google_reason: string | undefined } {
    return { google_status: this.status, google_reason: this.reason };
  }
}

const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

/**
 * A failure of google-auth-library or googleapis (gaxios errors) as a {@link GoogleFailure}:
 * OAuth error bodies (`{"error": "invalid_grant", "error_description": ...}`) and Calendar
 * API error bodies (`{"error": {"code", "message", "errors": [{"reason", ...}]}}`).
 */
export function googleFailure(error: unknown): GoogleFailure {
  if (error instanceof GoogleFailure) return error;
  const response = (error as { response?: { status?: unknown; data?: unknown } } | null)?.response;
  const status = typeof response?.status === 'number' ? response.status : undefined;
  if (status === undefined)
    return new GoogleFailure('unavailable', undefined, undefined, undefined);
  const { reason, message } = readErrorBody(response?.data);
  return new GoogleFailure(kindOf(status, reason), status, reason, message);
}

function kindOf(status: number, reason: string | undefined): GoogleFailureKind {
  if (reason === 'invalid_grant') return 'invalid_grant';
  if (status === 401) return 'unauthenticated';
  if (status === 429 || (status === 403 && reason !== undefined && RATE_LIMIT_REASONS.has(reason)))
    return 'rate_limited';
  if (status === 404) return 'not_found';
  if (status >= 500 || status === 408) return 'unavailable';
  return 'rejected';
}

function readErrorBody(data: unknown): { reason?: string; message?: string } {
  const body = typeof data === 'string' ? parseJson(data) : data;
  if (body === null || typeof body !== 'object') return {};
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return { reason: error.slice(0, 100) };
  if (error === null || typeof error !== 'object') return {};
  const details = error as { message?: unknown; errors?: { reason?: unknown }[]; status?: unknown };
  const first = Array.isArray(details.errors) ? details.errors[0]?.reason : undefined;
  const reason =
    typeof first === 'string'
      ? first
      : typeof details.status === 'string'
        ? details.status
        : undefined;
  return {
    ...(reason ? { reason: reason.slice(0, 100) } : {}),
    ...(typeof details.message === 'string' ? { message: details.message.slice(0, 300) } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
