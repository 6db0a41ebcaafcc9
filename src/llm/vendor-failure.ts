import { LlmError, type LlmFailure } from './errors.ts';

/**
 * The failure kind of a vendor HTTP status: 401/403 refused credential, 429/503/529
 * overloaded, 400/404/413/422 (and other 4xx) a rejected request, other 5xx unavailable.
 */
export function failureForStatus(status: number): LlmFailure {
  if (status === 401 || status === 403) return 'auth_rejected';
  if (status === 429 || status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status >= 500) return 'unavailable';
  return 'rejected';
}

/**
 * The failure kind of an error a vendor reports inside a stream that already answered 200
 * (Anthropic `event: error`, an OpenAI-compatible `{"error": ...}` chunk). The error
 * `type` names are Anthropic's and OpenAI's documented ones.
 */
export function failureForStreamErrorType(type: string | null | undefined): LlmFailure {
  switch (type) {
    case 'overloaded_error':
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
    case 'insufficient_quota':
      return 'overloaded';
    case 'authentication_error':
    case 'permission_error':
      return 'auth_rejected';
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return 'rejected';
    default:
      return 'unavailable';
  }
}

/** Milliseconds of a `retry-after-ms` or `retry-after` header (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Shape shared by both SDKs' `APIError` (status undefined for errors inside a stream). */
interface SdkApiErrorLike {
  status: number | undefined;
  headers: Headers | undefined;
  requestID?: string | null | undefined;
}

/**
 * Maps an error thrown by a vendor SDK to an `LlmError`. `streamErrorType` reads the
 * vendor's error type of an error reported inside a stream. The message names the status
 * and request id only: vendor messages can echo request content.
 */
export function llmErrorFromSdk(
  error: unknown,
  vendor: string,
  classes: {
    apiError: abstract new (...args: never[]) => SdkApiErrorLike;
    connectionError: abstract new (...args: never[]) => unknown;
  },
  streamErrorType: (error: SdkApiErrorLike) => string | null | undefined,
): LlmError {
  if (error instanceof LlmError) return error;
  if (error instanceof classes.connectionError) {
    return new LlmError('unavailable', `${vendor}: connection failed`, { cause: error });
  }
  if (error instanceof classes.apiError) {
    const requestId = error.requestID ? ` (request ${error.requestID})` : '';
    if (error.status === undefined) {
      const type = streamErrorType(error);
      return new LlmError(
        failureForStreamErrorType(type),
        `${vendor}: error in stream: ${type ?? 'unknown'}${requestId}`,
        { cause: error },
      );
    }
    return new LlmError(
      failureForStatus(error.status),
      `${vendor}: HTTP ${error.status}${requestId}`,
      {
        cause: error,
        retryAfterMs: retryAfterMs(error.headers),
      },
    );
  }
  // undici's "terminated" (a reset mid-body), socket errors, a malformed chunk.
  return new LlmError('unavailable', `${vendor}: stream failed`, { cause: error });
}
