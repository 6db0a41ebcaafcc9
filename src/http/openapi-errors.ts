import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
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
  if (route.body || route.requestContent) {
    codes.add('invalid_request');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
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

/** Error codes grouped by HTTP status, in status order. */
export function codesByStatus(codes: readonly ErrorCode[]): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}
