import { ApiError } from '../errors.ts';

/** Why a language-model call failed; decides the public code and whether a retry can help. */
export type LlmFailure =
  /** No credential configured for the provider. */
  | 'auth_missing'
  /** The vendor refused our credential (401/403). */
  | 'auth_rejected'
  /** Rate limited or overloaded (429, 503, 529). */
  | 'overloaded'
  /** Timed out, reset, 5xx, a stalled stream, the local model crashed. */
  | 'unavailable'
  /** The vendor rejected the request itself (400, 404, 422). */
  | 'rejected'
  /** The caller aborted the call. */
  | 'cancelled';

/** A typed language-model failure; `toApiError()` gives the public error without vendor detail. */
export class LlmError extends Error {
  readonly failure: LlmFailure;
  /** How long the vendor asked us to wait before retrying (`retry-after`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    failure: LlmFailure,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number | undefined },
  ) {
    super(message, options);
    this.name = 'LlmError';
    this.failure = failure;
    this.retryAfterMs = options?.retryAfterMs;
  }

  get retryable(): boolean {
    return this.failure === 'unavailable' || this.failure === 'overloaded';
  }

  toApiError(): ApiError {
    switch (this.failure) {
      case 'auth_missing':
        return new ApiError('provider_auth_missing', 'The language model is not configured.');
      case 'auth_rejected':
        return new ApiError('provider_error', 'The language-model provider refused the request.', {
          retryable: false,
        });
      case 'overloaded':
        return new ApiError(
          'provider_unavailable',
          'The language model is temporarily unavailable.',
        );
      case 'unavailable':
      case 'cancelled':
        return new ApiError('provider_error', 'The language model failed; retry.', {
          retryable: true,
        });
      case 'rejected':
        return new ApiError('provider_error', 'The language model could not answer this request.', {
          retryable: false,
        });
    }
  }
}
