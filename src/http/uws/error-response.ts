import { bodyTooLargeError, errorBody, toApiError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import type { HttpResponse } from '../types.ts';
import { BodyTooLargeError } from './read-body.ts';

/**
 * The spec's error answer for whatever a request threw: its status, the error body,
 * `retry-after` and `allow` when the error carries them, and `connection: close` when
 * the body was too large (the rest of it is never read). Unexpected errors are logged.
 */
export function errorResponse(
  error: unknown,
  requestId: string,
  method: string,
  routeLabel: string,
  logger: Logger,
): HttpResponse {
  const apiError =
    error instanceof BodyTooLargeError
      ? bodyTooLargeError(`The request body exceeds ${error.limitBytes} bytes.`)
      : toApiError(error);
  if (apiError.code === 'internal_error') {
    logger.error(
      { err: error, request_id: requestId, method, route: routeLabel },
      'request failed',
    );
  }
  const headers: Record<string, string> = {};
  if (apiError.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(apiError.retryAfterSeconds)));
  }
  const allow = (error as { allow?: unknown }).allow;
  if (typeof allow === 'string') headers.allow = allow;
  if (error instanceof BodyTooLargeError) headers.connection = 'close';
  return { status: apiError.status, headers, body: errorBody(apiError, requestId) };
}
