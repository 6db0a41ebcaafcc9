// The api's error class and its replies. The code -> status -> retryable table is the
// shared protocol's (protocol/src/errors.ts): the SDKs read the same one.
import {
  ERROR_CODES,
  type ErrorCode,
  type ErrorEvent,
  INVALID_REQUEST_STATUS,
  type InvalidRequestStatus,
} from '@awp/protocol';

export { ERROR_CODES, type ErrorCode, INVALID_REQUEST_STATUS };

/** An error with an API code; the HTTP layer turns it into the spec's error object. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  /** Seconds for a `Retry-After` header, when the caller should wait. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { retryable?: boolean; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get detail(): string {
    return this.message;
  }
}

/** `invalid_request` answered with the status of its condition (413, 415 or 400). */
class InvalidRequestError extends ApiError {
  override readonly status: InvalidRequestStatus;

  constructor(detail: string, status: InvalidRequestStatus) {
    super('invalid_request', detail);
    this.status = status;
  }
}

/** A request body over the route's limit: the spec's `invalid_request`, HTTP 413. */
export function bodyTooLargeError(detail: string): ApiError {
  return new InvalidRequestError(detail, INVALID_REQUEST_STATUS.body_too_large);
}

/** A request body of a content type the route does not take: `invalid_request`, HTTP 415. */
export function unsupportedMediaTypeError(detail: string): ApiError {
  return new InvalidRequestError(detail, INVALID_REQUEST_STATUS.unsupported_media_type);
}

/** The spec's error object, as sent on HTTP and as a streaming event. */
export type ErrorBody = ErrorEvent;

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    event: 'error',
    request_id: requestId,
    code: error.code,
    retryable: error.retryable,
    detail: error.detail,
  };
}

/** Any thrown value as an ApiError; unknown failures become a generic internal error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError('internal_error', 'Internal error.', { cause: error });
}
