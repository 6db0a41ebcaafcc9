import { ApiError } from '../errors.ts';

/** Why a speech-to-text call failed; decides the public code and whether a retry can help. */
export type SttFailure =
  /** No credential configured, or the embedded engine is not installed. */
  | 'not_configured'
  /** The vendor refused our credential (401/403). */
  | 'auth_rejected'
  /** Rate limited (429), or the engine's request queue is full. */
  | 'overloaded'
  /** Timed out, connection dropped, 5xx, the sidecar crashed. */
  | 'unavailable'
  /** The vendor or engine rejected the request itself (400, bad audio). */
  | 'rejected'
  /** The caller aborted. */
  | 'cancelled';

/** A typed speech-to-text failure; `toApiError()` gives the public error without vendor detail. */
export class SttError extends Error {
  readonly failure: SttFailure;

  constructor(failure: SttFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SttError';
    this.failure = failure;
  }

  /** Whether the same request can succeed when tried again (a new stream for streams). */
  get retryable(): boolean {
    return this.failure === 'unavailable' || this.failure === 'overloaded';
  }

  toApiError(): ApiError {
    switch (this.failure) {
      case 'not_configured':
        return new ApiError('provider_auth_missing', 'Speech recognition is not configured.');
      case 'auth_rejected':
        return new ApiError(
          'provider_error',
          'The speech-recognition provider refused the request.',
          {
            retryable: false,
          },
        );
      case 'overloaded':
        return new ApiError(
          'provider_unavailable',
          'Speech recognition is temporarily unavailable.',
        );
      case 'unavailable':
      case 'cancelled':
        return new ApiError('provider_error', 'Speech recognition failed; retry.', {
          retryable: true,
        });
      case 'rejected':
        return new ApiError('provider_error', 'Speech recognition could not process this audio.', {
          retryable: false,
        });
    }
  }
}

/** The error a call ends with when its signal aborted. */
export function cancelledError(): SttError {
  return new SttError('cancelled', 'speech recognition cancelled');
}
