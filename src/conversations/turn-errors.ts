import { ApiError } from '../errors.ts';
import { LlmError } from '../llm/errors.ts';

/** What a failed turn answers: model errors become their API error, keeping Retry-After. */
export function toTurnError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof LlmError) {
    const api = error.toApiError();
    if (error.retryAfterMs === undefined) return api;
    return new ApiError(api.code, api.detail, {
      retryable: api.retryable,
      retryAfterSeconds: error.retryAfterMs / 1000,
    });
  }
  return new ApiError('internal_error', 'Internal error.', { cause: error });
}
