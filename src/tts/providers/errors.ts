import { ApiError } from '../../errors.ts';

/** Why a provider failed; decides the public code and whether a retry can help. */
export type ProviderFailure =
  /** No credential configured for the provider account. */
  | 'auth_missing'
  /** The provider refused our credential (401/403). Not retryable. */
  | 'auth_rejected'
  /** Provider rate limited or overloaded (429, 503): the voice is temporarily unavailable. */
  | 'overloaded'
  /** Timed out, connection reset, 5xx, engine crashed. Retryable. */
  | 'unavailable'
  /** The provider rejected the request itself. Not retryable. */
  | 'rejected';

/** A typed provider failure; `toApiError()` gives the public error without vendor detail. */
export class ProviderError extends Error {
  readonly failure: ProviderFailure;

  constructor(failure: ProviderFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderError';
    this.failure = failure;
  }

  get retryable(): boolean {
    return this.failure === 'unavailable' || this.failure === 'overloaded';
  }

  /** Public error; `message` stays internal (it may name the vendor). */
  toApiError(): ApiError {
    switch (this.failure) {
      case 'auth_missing':
        return new ApiError('provider_auth_missing', 'The voice is not configured for synthesis.');
      case 'auth_rejected':
        return new ApiError('provider_error', 'The voice provider refused the request.', {
          retryable: false,
        });
      case 'overloaded':
        return new ApiError('provider_unavailable', 'The voice is temporarily unavailable.');
      case 'unavailable':
        return new ApiError('provider_error', 'Synthesis failed; retry with a new request.', {
          retryable: true,
        });
      case 'rejected':
        return new ApiError('provider_error', 'The voice provider could not synthesize the text.', {
          retryable: false,
        });
    }
  }
}
