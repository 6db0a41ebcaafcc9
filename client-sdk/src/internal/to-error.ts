import { ConversationError } from '../errors.ts';

/** A `ConversationError` as is; anything else as a retryable one with code `fallback`. */
export function toError(error: unknown, fallback: string): ConversationError {
  if (error instanceof ConversationError) return error;
  return new ConversationError(fallback, error instanceof Error ? error.message : String(error), {
    cause: error,
    retryable: true,
  });
}
