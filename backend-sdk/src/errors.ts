/**
 * Errors of the server SDK. Every failure is an {@link AwpError}; API failures are one
 * subclass per error code of the service (match with `instanceof` or on `code`, never on
 * the message), and failures on this side (network, timeout, abort, a broken stream) have
 * their own subclasses. The codes, their statuses and retryability are the shared protocol's
 * registry, which the package build ships inside this library.
 */
import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry } from '@awp/protocol';

/** Error codes the service documents; other strings may appear from newer services. */
export type ApiErrorCode = ErrorCode;

/** Codes of failures detected by the SDK itself rather than answered by the service. */
export type LibraryErrorCode =
  | 'connection_error'
  | 'timeout'
  | 'aborted'
  | 'stream_closed'
  | 'stream_sequence_error'
  /** The text source given to a TTS stream threw; the stream was closed. */
  | 'input_failed'
  /** Text sent to a TTS stream that had already finished. */
  | 'stream_finished'
  | 'invalid_response';

/** Everything an {@link AwpError} carries. */
export interface AwpErrorInit {
  /** The service's error code, or a {@link LibraryErrorCode}. */
  code: string;
  /** The service's `detail` (or what the SDK observed); never match on it. */
  detail: string;
  /** HTTP status of the answer; undefined when no answer arrived. */
  status?: number | undefined;
  /** The service's request id (`X-Request-Id` or the error's `request_id`). */
  requestId?: string | undefined;
  /** Authoritative: whether repeating the request can succeed. */
  retryable: boolean;
  /** What the service asked for in `Retry-After`, in milliseconds. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * Base class of every SDK error. Codes this version does not know map to this class.
 *
 * @example
 * ```ts
 * try {
 *   await client.voices.list();
 * } catch (error) {
 *   if (error instanceof AwpError) console.log(error.code, error.status, error.requestId);
 * }
 * ```
 */
export class AwpError extends Error {
  /** The service's error code (`invalid_request`, ...) or a {@link LibraryErrorCode}. */
  readonly code: ApiErrorCode | LibraryErrorCode | (string & {});
  /** HTTP status; undefined when no HTTP answer arrived (network, abort, stream events). */
  readonly status: number | undefined;
  /** The service's id of the failed request: quote it to support. */
  readonly requestId: string | undefined;
  /** Authoritative: true when repeating the request (a new request) can succeed. */
  readonly retryable: boolean;
  /** The service's `detail` text; for people, never for matching. */
  readonly detail: string;
  /** `Retry-After` of the answer, in milliseconds, when the service sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: AwpErrorInit) {
    super(
      init.status === undefined
        ? `${init.code}: ${init.detail}`
        : `${init.status} ${init.code}: ${init.detail}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryable = init.retryable;
    this.detail = init.detail;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400 `invalid_request`: bad JSON, event order, configuration or input limits. @example `if (e instanceof InvalidRequestError) console.warn(e.detail)` */
export class InvalidRequestError extends AwpError {}
/** 413 `invalid_request`: the body is larger than the route accepts. @example `e instanceof PayloadTooLargeError` */
export class PayloadTooLargeError extends InvalidRequestError {}
/** 415 `invalid_request`: the body's content type is not accepted. @example `e instanceof UnsupportedMediaTypeError` */
export class UnsupportedMediaTypeError extends InvalidRequestError {}
/** 400 `memory_identity_required`: the Agent has memory on; send `end_user_id`. @example `catch (e) { if (e instanceof MemoryIdentityRequiredError) askForLogin() }` */
export class MemoryIdentityRequiredError extends AwpError {}
/** 400 `documents_identity_required`: the Agent has documents on; send `end_user_id`. @example `e instanceof DocumentsIdentityRequiredError` */
export class DocumentsIdentityRequiredError extends AwpError {}
/** 400 `calendar_identity_required`: the Agent has calendar on; send `end_user_id`. @example `e instanceof CalendarIdentityRequiredError` */
export class CalendarIdentityRequiredError extends AwpError {}
/** 401 `unauthorized`: missing, unknown, revoked, expired or wrong-environment credential. @example `if (e instanceof UnauthorizedError) rotateKey()` */
export class UnauthorizedError extends AwpError {}
/** 402 `insufficient_credit`: the workspace balance cannot pay for the request. @example `if (e instanceof InsufficientCreditError) alertBilling()` */
export class InsufficientCreditError extends AwpError {}
/** 403 `organization_suspended`: the workspace is suspended. @example `e instanceof OrganizationSuspendedError` */
export class OrganizationSuspendedError extends AwpError {}
/** 403 `capability_disabled`: the product (TTS, Agents) is not enabled for the workspace. @example `e instanceof CapabilityDisabledError` */
export class CapabilityDisabledError extends AwpError {}
/** 403 `forbidden`: the credential is valid but may not do this. @example `e instanceof ForbiddenError` */
export class ForbiddenError extends AwpError {}
/** 403 `session_token_agent_mismatch`: a session token used for another Agent. @example `e instanceof SessionTokenAgentMismatchError` */
export class SessionTokenAgentMismatchError extends AwpError {}
/** 404 `not_found`: unknown route or resource id. @example `if (e instanceof NotFoundError) return null` */
export class NotFoundError extends AwpError {}
/** 404 `voice_not_found`: unknown `voice_id` or one not enabled for the key. @example `if (e instanceof VoiceNotFoundError) await client.voices.list()` */
export class VoiceNotFoundError extends AwpError {}
/** 405 `method_not_allowed`: the route exists, not with this method. @example `e instanceof MethodNotAllowedError` */
export class MethodNotAllowedError extends AwpError {}
/** 409 `conflict`: the request conflicts with the current state (a slug taken, ...). @example `if (e instanceof ConflictError) pickAnotherSlug()` */
export class ConflictError extends AwpError {}
/** 409 `agent_not_api_ready`: the Agent has no public voice selection. @example `e instanceof AgentNotApiReadyError` */
export class AgentNotApiReadyError extends AwpError {}
/** 409 `agent_not_published`: session token or message for an unpublished Agent. @example `if (e instanceof AgentNotPublishedError) await client.agents.publish(id)` */
export class AgentNotPublishedError extends AwpError {}
/** 429 `rate_limited`: wait `retryAfterMs`; retried automatically. @example `if (e instanceof RateLimitedError) setTimeout(retry, e.retryAfterMs ?? 1000)` */
export class RateLimitedError extends AwpError {}
/** 500 `internal_error`: an unexpected failure in the service; retried automatically. @example `e instanceof InternalServerError` */
export class InternalServerError extends AwpError {}
/** 502 `provider_error`: the speech or language-model provider failed; `retryable` decides. @example `if (e instanceof ProviderError && e.retryable) retry()` */
export class ProviderError extends AwpError {}
/** 503 `provider_auth_missing`: a provider credential is missing (the voice's, or the service's Google OAuth client for calendar connections). @example `e instanceof ProviderAuthMissingError` */
export class ProviderAuthMissingError extends AwpError {}
/** 503 `provider_unavailable`: the voice is temporarily unavailable; retried automatically. @example `e instanceof ProviderUnavailableError` */
export class ProviderUnavailableError extends AwpError {}
/** 503 `organization_account_missing`: the workspace billing account is not provisioned. @example `e instanceof OrganizationAccountMissingError` */
export class OrganizationAccountMissingError extends AwpError {}
/** 503 `service_unavailable`: the service is starting or shutting down; retried automatically. @example `e instanceof ServiceUnavailableError` */
export class ServiceUnavailableError extends AwpError {}

/**
 * No answer arrived: the connection failed or was reset. Retried automatically for
 * idempotent calls only, since a request may have reached the service.
 *
 * @example
 * ```ts
 * if (error instanceof AwpConnectionError) console.warn('network trouble', error.cause);
 * ```
 */
export class AwpConnectionError extends AwpError {}
/** The call's `timeoutMs` passed before an answer. @example `if (e instanceof AwpTimeoutError) raiseTimeout()` */
export class AwpTimeoutError extends AwpConnectionError {}
/** A TTS stream closed before `finish` or an `error` event. @example `if (e instanceof AwpStreamClosedError) showPartial()` */
export class AwpStreamClosedError extends AwpConnectionError {}
/** The caller's `AbortSignal` fired; never retried. @example `if (e instanceof AwpAbortError) return` */
export class AwpAbortError extends AwpError {}
/**
 * A TTS stream's `seq` skipped or repeated a number: audio was lost or duplicated.
 * `expectedSeq` and `receivedSeq` say where.
 *
 * @example
 * ```ts
 * if (error instanceof AwpStreamSequenceError) console.warn(error.expectedSeq, error.receivedSeq);
 * ```
 */
export class AwpStreamSequenceError extends AwpError {
  /** The `seq` that should have come next. */
  readonly expectedSeq: number;
  /** The `seq` that came instead. */
  readonly receivedSeq: number;
  constructor(init: AwpErrorInit & { expectedSeq: number; receivedSeq: number }) {
    super(init);
    this.expectedSeq = init.expectedSeq;
    this.receivedSeq = init.receivedSeq;
  }
}
/** The service answered something that is not the documented shape. @example `e instanceof AwpInvalidResponseError` */
export class AwpInvalidResponseError extends AwpError {}

/** The class of each API error code. */
const ERROR_CLASS_OF_CODE: Record<ApiErrorCode, typeof AwpError> = {
  invalid_request: InvalidRequestError,
  memory_identity_required: MemoryIdentityRequiredError,
  documents_identity_required: DocumentsIdentityRequiredError,
  calendar_identity_required: CalendarIdentityRequiredError,
  unauthorized: UnauthorizedError,
  insufficient_credit: InsufficientCreditError,
  organization_suspended: OrganizationSuspendedError,
  capability_disabled: CapabilityDisabledError,
  forbidden: ForbiddenError,
  session_token_agent_mismatch: SessionTokenAgentMismatchError,
  not_found: NotFoundError,
  voice_not_found: VoiceNotFoundError,
  method_not_allowed: MethodNotAllowedError,
  conflict: ConflictError,
  agent_not_api_ready: AgentNotApiReadyError,
  agent_not_published: AgentNotPublishedError,
  rate_limited: RateLimitedError,
  internal_error: InternalServerError,
  provider_error: ProviderError,
  provider_auth_missing: ProviderAuthMissingError,
  provider_unavailable: ProviderUnavailableError,
  organization_account_missing: OrganizationAccountMissingError,
  service_unavailable: ServiceUnavailableError,
};

/**
 * The class, documented HTTP status and default retryability of each API error code. The
 * codes the service adds to the spec's own carry `fallback`: the spec code a client that
 * knows only the spec's codes handles them as (docs/errors.md, Extensions).
 */
export const API_ERROR_CLASSES: Readonly<
  Record<
    ApiErrorCode,
    { status: number; retryable: boolean; type: typeof AwpError; fallback?: ApiErrorCode }
  >
> = Object.fromEntries(
  Object.entries(ERROR_CLASS_OF_CODE).map(([code, type]) => {
    const entry: ErrorCodeEntry = ERROR_CODES[code as ApiErrorCode];
    return [
      code,
      {
        status: entry.status,
        retryable: entry.retryable,
        type,
        ...(entry.fallback === undefined ? {} : { fallback: entry.fallback }),
      },
    ];
  }),
) as Record<ApiErrorCode, { status: number; retryable: boolean; type: typeof AwpError }>;

/** The error object the service sends on HTTP and as a stream `error` event. */
export interface ApiErrorBody {
  event: 'error';
  request_id: string;
  code: string;
  retryable: boolean;
  detail?: string;
}

/**
 * The typed error for one of the service's error objects: the class of its `code`, or
 * {@link AwpError} for codes this version does not know. `status` defaults to the code's
 * documented status (stream `error` events have no HTTP status of their own).
 *
 * @example
 * ```ts
 * const error = apiError({ event: 'error', request_id: 'r1', code: 'conflict', retryable: false });
 * error instanceof ConflictError; // true
 * ```
 */
export function apiError(
  body: ApiErrorBody,
  extra: { status?: number; retryAfterMs?: number | undefined; requestId?: string } = {},
): AwpError {
  const known = Object.hasOwn(API_ERROR_CLASSES, body.code)
    ? API_ERROR_CLASSES[body.code as ApiErrorCode]
    : undefined;
  const Type =
    body.code === 'invalid_request' ? invalidRequestType(extra.status) : (known?.type ?? AwpError);
  return new Type({
    code: body.code,
    detail: body.detail ?? '',
    status: extra.status ?? known?.status,
    requestId: body.request_id || extra.requestId,
    retryable: body.retryable,
    retryAfterMs: extra.retryAfterMs,
  });
}

/** `invalid_request` is answered 413 for a body over a limit and 415 for a wrong content type. */
function invalidRequestType(status: number | undefined): typeof AwpError {
  if (status === 413) return PayloadTooLargeError;
  if (status === 415) return UnsupportedMediaTypeError;
  return InvalidRequestError;
}

/** True when `value` has the fields of the service's error object. */
export function isApiErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === 'string' && typeof v.retryable === 'boolean';
}
