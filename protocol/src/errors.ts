/**
 * The api's error codes (docs/errors.md): each with its HTTP status, whether a retry can
 * help, its meaning, and for an extension the spec code it falls back to. The api answers
 * with them, and the SDKs map them to their error classes.
 */

/** The codes the spec's error table names; every other code is an extension. */
export type SpecErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_credit'
  | 'organization_suspended'
  | 'capability_disabled'
  | 'organization_account_missing'
  | 'session_token_agent_mismatch'
  | 'agent_not_api_ready'
  | 'memory_identity_required'
  | 'documents_identity_required'
  | 'calendar_identity_required'
  | 'provider_auth_missing'
  | 'provider_unavailable'
  | 'provider_error';

export interface ErrorCodeEntry {
  /** The usual HTTP status; `invalid_request` is also 413 and 415 (see {@link ApiError}). */
  status: number;
  retryable: boolean;
  meaning: string;
  /**
   * Only on extensions (codes the spec does not name): the spec code a client that knows
   * only the spec's codes should handle this one as. Spec codes have none.
   */
  fallback?: SpecErrorCode;
}

/**
 * The one list of API error codes: HTTP status, whether a retry can help, meaning, and for
 * an extension the spec code it falls back to. `docs/errors.md` documents the same list;
 * a test keeps the two in step.
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    retryable: false,
    meaning:
      'Bad JSON, event order, configuration or input limits; a body over a limit (413) or of a wrong content type (415).',
  },
  memory_identity_required: {
    status: 400,
    retryable: false,
    meaning: 'The Agent has memory enabled and end_user_id is missing.',
  },
  documents_identity_required: {
    status: 400,
    retryable: false,
    meaning: 'The Agent has documents enabled and end_user_id is missing.',
  },
  calendar_identity_required: {
    status: 400,
    retryable: false,
    meaning: 'The Agent has calendar enabled and end_user_id is missing.',
  },
  unauthorized: {
    status: 401,
    retryable: false,
    meaning: 'Authorization missing, not an accepted credential, unknown, revoked or expired.',
  },
  insufficient_credit: {
    status: 402,
    retryable: false,
    meaning: 'Workspace balance exhausted or insufficient for the billable usage.',
  },
  organization_suspended: { status: 403, retryable: false, meaning: 'Workspace suspended.' },
  capability_disabled: {
    status: 403,
    retryable: false,
    meaning: 'The product the route belongs to is not enabled for the workspace.',
  },
  forbidden: {
    status: 403,
    retryable: false,
    meaning: 'The credential is valid but may not perform this operation.',
    fallback: 'invalid_request',
  },
  session_token_agent_mismatch: {
    status: 403,
    retryable: false,
    meaning: 'Session token used for an Agent other than the one it was minted for.',
  },
  not_found: {
    status: 404,
    retryable: false,
    meaning: 'Unknown route or resource id.',
    fallback: 'invalid_request',
  },
  voice_not_found: {
    status: 404,
    retryable: false,
    meaning: 'Unknown voice_id, or a voice not enabled for the calling key.',
    fallback: 'invalid_request',
  },
  method_not_allowed: {
    status: 405,
    retryable: false,
    meaning: 'The route exists but not with this HTTP method.',
    fallback: 'invalid_request',
  },
  conflict: {
    status: 409,
    retryable: false,
    meaning:
      'The request conflicts with the current state (a slug already taken, no usable model, a message being answered).',
    fallback: 'invalid_request',
  },
  agent_not_api_ready: {
    status: 409,
    retryable: false,
    meaning: 'The Agent has no public voice selection.',
  },
  agent_not_published: {
    status: 409,
    retryable: false,
    meaning: 'Session token or message for an unpublished Agent.',
    fallback: 'agent_not_api_ready',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    meaning: 'Rate or concurrency limit exceeded; retry after the Retry-After header.',
    fallback: 'provider_unavailable',
  },
  internal_error: {
    status: 500,
    retryable: true,
    meaning: 'An unexpected failure inside the service.',
    fallback: 'provider_error',
  },
  provider_error: {
    status: 502,
    retryable: false,
    meaning:
      'The speech or language-model provider failed; `retryable` says whether a retry can help.',
  },
  provider_auth_missing: {
    status: 503,
    retryable: false,
    meaning:
      'A provider credential is missing: the voice’s, or the deployment’s Google OAuth client for calendar connections.',
  },
  provider_unavailable: {
    status: 503,
    retryable: true,
    meaning:
      'The voice is temporarily unavailable, or no agent worker took a live session start (every worker full, or none running).',
  },
  organization_account_missing: {
    status: 503,
    retryable: false,
    meaning: 'The workspace billing account is not provisioned.',
  },
  service_unavailable: {
    status: 503,
    retryable: true,
    meaning:
      'The service, or a part it needs, is unavailable for now (starting, shutting down, at capacity).',
    fallback: 'provider_unavailable',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The HTTP statuses of `invalid_request` besides 400: the spec names the condition (a body
 * over a limit, a wrong content type) but not its status, and these are the statuses HTTP
 * has for them.
 */
export const INVALID_REQUEST_STATUS = { body_too_large: 413, unsupported_media_type: 415 } as const;

export type InvalidRequestStatus =
  | 400
  | (typeof INVALID_REQUEST_STATUS)[keyof typeof INVALID_REQUEST_STATUS];

/**
 * Some of the codes, as a client that meets only these names them: naming a code the
 * registry does not have fails to type-check.
 */
export type ErrorCodeSubset<T extends ErrorCode> = T;
