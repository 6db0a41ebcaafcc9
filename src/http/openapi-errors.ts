import { z } from 'zod';
import { ERROR_CODES, type ErrorCode, INVALID_REQUEST_STATUS } from '../errors.ts';
import type { AnyRoute } from './route.ts';

/** The error codes a route can answer: implied by how it is called, plus its own. */
export function routeErrorCodes(route: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(['internal_error']);
  if (route.auth.kind === 'workspace_key') {
    codes.add('unauthorized');
    codes.add('organization_suspended');
    codes.add('organization_account_missing');
    if (route.auth.capability) codes.add('capability_disabled');
    if (route.auth.permission) codes.add('forbidden');
  }

  if (route.auth.kind === 'agent_session_token') {
    codes.add('unauthorized');
    codes.add('organization_suspended');
    codes.add('organization_account_missing');
    codes.add('capability_disabled');
  }
  // A route that reads its body itself (`requestContent`) can refuse it the same ways.
  if (route.body || route.requestContent) codes.add('invalid_request');
  if (route.query || route.path.includes(':')) codes.add('invalid_request');
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

/** The spec's error object whose `code` is one of `codes`. */
export function errorSchemaFor(codes: readonly ErrorCode[]) {
  return z.object({
    event: z.literal('error'),
    request_id: z.string().describe('Server-assigned id of the failed request.'),
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    retryable: z.boolean().describe('Authoritative: retry only when true.'),
    detail: z.string().describe('Human-readable explanation; never match on it.'),
  });
}

/**
 * Error codes grouped by HTTP status, in status order. A route with a body also answers
 * `invalid_request` with 413 (body over the limit) and 415 (wrong content type).
 */
export function codesByStatus(
  route: AnyRoute,
  codes: readonly ErrorCode[],
): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>();
  const add = (status: number, code: ErrorCode) =>
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of codes) add(ERROR_CODES[code].status, code);
  if (route.body || route.requestContent) {
    add(INVALID_REQUEST_STATUS.body_too_large, 'invalid_request');
    add(INVALID_REQUEST_STATUS.unsupported_media_type, 'invalid_request');
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}
