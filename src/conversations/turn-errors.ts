import type { PublishedAgent } from '../agents/agent-store.ts';
import { ApiError } from '../errors.ts';
import { LlmError } from '../llm/errors.ts';

/** The identity errors of session tokens, for the published switches. */
export function checkIdentity(published: PublishedAgent, endUserId: string | undefined): void {
  if (endUserId) return;
  const { memoryEnabled, documentsEnabled, calendarEnabled } = published.publication;
  if (memoryEnabled) {
    throw new ApiError(
      'memory_identity_required',
      'The Agent has memory enabled: send end_user_id.',
    );
  }
  if (documentsEnabled) {
    throw new ApiError(
      'documents_identity_required',
      'The Agent has documents enabled: send end_user_id.',
    );
  }
  if (calendarEnabled) {
    throw new ApiError(
      'calendar_identity_required',
      'The Agent has calendar enabled: send end_user_id.',
    );
  }
}

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
