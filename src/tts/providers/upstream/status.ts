import { ProviderError, type ProviderFailure } from '../errors.ts';

/**
 * The failure kind of an upstream HTTP status other than 2xx:
 *
 * | status | failure | why |
 * |---|---|---|
 * | 401, 403 | `auth_rejected` | the key is wrong, revoked or lacks permission |
 * | 402 | `auth_rejected` | the account cannot pay; an operator has to act, a retry cannot help |
 * | 429, 503 | `overloaded` | rate or concurrency limit, or the vendor is shedding load |
 * | 408, 500, 502, 504, other 5xx | `unavailable` | transient; a new request may succeed |
 * | 400, 404, 413, 422, other 4xx | `rejected` | the request itself (text, voice, parameter) was refused |
 * | anything else (1xx, 3xx) | `unavailable` | not a valid answer to a synthesis request |
 */
export function failureForStatus(status: number): ProviderFailure {
  if (status === 401 || status === 402 || status === 403) return 'auth_rejected';
  if (status === 429 || status === 503) return 'overloaded';
  if (status === 408 || (status >= 500 && status <= 599)) return 'unavailable';
  if (status >= 400 && status <= 499) return 'rejected';
  return 'unavailable';
}

/** Where an upstream failure came from, for logs; none of it is shown to clients. */
export interface UpstreamErrorDetails {
  /** Provider name (`elevenlabs`, `fishaudio`). */
  readonly provider: string;
  /** HTTP status when the vendor answered, undefined for timeouts and connection failures. */
  readonly status?: number | undefined;
  /** The vendor's own machine-readable error code, when its body carried one. */
  readonly vendorCode?: string | undefined;
  /** The request id the vendor returned (or the one we sent), for support tickets. */
  readonly upstreamRequestId?: string | undefined;
  readonly cause?: unknown;
}

/**
 * A {@link ProviderError} from an upstream vendor, carrying the HTTP status and the
 * upstream request id for logs. The message names the vendor and never holds the API key.
 */
export class UpstreamProviderError extends ProviderError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly vendorCode: string | undefined;
  readonly upstreamRequestId: string | undefined;

  constructor(failure: ProviderFailure, message: string, details: UpstreamErrorDetails) {
    super(failure, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'UpstreamProviderError';
    this.provider = details.provider;
    this.status = details.status;
    this.vendorCode = details.vendorCode;
    this.upstreamRequestId = details.upstreamRequestId;
  }
}
