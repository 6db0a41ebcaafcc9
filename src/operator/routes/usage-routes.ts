import type { Kysely } from 'kysely';
import { z } from 'zod';
import { CreditGrants } from '../../billing/grants.ts';
import {
  type RecentModelCall,
  type RecentRequest,
  recentModelCalls,
  recentRequests,
  type UsageCursor,
  usageCursor,
} from '../../billing/usage.ts';
import { fullPageCursor } from '../../db/page.ts';
import type { Database } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { KEY_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

/** Requests (and language-model calls) the Usage page lists at first, and a page's default. */
const RECENT_REQUESTS = 50;

const pageQuery = z.strictObject({
  /** `next_cursor` of the previous page: the rows older than its last. */
  cursor: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

/** A synthesis request as the operator API lists it. */
function requestItem(entry: RecentRequest) {
  return {
    request_id: entry.requestId,
    created_at: entry.createdAt,
    voice_id: entry.voiceId,
    characters: entry.characters,
    credits: entry.credits,
    status: entry.status,
    caller: entry.caller,
  };
}

/** A language-model call as the operator API lists it. */
function modelCallItem(call: RecentModelCall) {
  return {
    request_id: call.requestId,
    created_at: call.createdAt,
    agent_id: call.agentId,
    agent_slug: call.agentSlug,
    source: call.source,
    llm_provider: call.provider,
    llm_model: call.model,
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    credits: call.credits,
    status: call.status,
    caller: call.caller,
  };
}

/** The last row's request id when the page is full (there may be older rows), else null. */
function nextCursor(rows: readonly { requestId: string }[], limit: number): string | null {
  return fullPageCursor(rows, limit, (last) => last.requestId);
}

/**
 * Usage (the dashboard's Config › Usage page): the workspace's credit as `awp credit show`
 * reports it (1,000 credits = 1 USD), its recent grants, and the newest synthesis requests
 * and language-model calls of the listener's environment, each list paged further with
 * `next_cursor` by its own route.
 */
export function usageRoutes(guard: OperatorGuard, db: Kysely<Database>): AnyRoute[] {
  const grants = new CreditGrants(db);

  /** Where a page starts: after the row `cursor` names, which must be the listener's. */
  const startAfter = async (
    table: 'synthesis_requests' | 'llm_requests',
    member: OperatorPrincipal,
    request: HttpRequest,
    cursor: string | undefined,
  ): Promise<UsageCursor | undefined> => {
    if (cursor === undefined) return undefined;
    const found = await usageCursor(db, table, member.workspaceId, request.environment, cursor);
    if (!found) throw new ApiError('invalid_request', 'cursor names no request here.');
    return found;
  };

  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/usage',
      operationId: 'operatorUsage',
      summary:
        'Credit balance, reserved, charged and granted; recent grants, requests and language-model calls, with the `next_cursor` of each list.',
      roles: KEY_MANAGER_ROLES,
      handle: async ({ member, request }) => {
        const account = await grants.account(member.workspaceId);
        const requests = await recentRequests(
          db,
          member.workspaceId,
          request.environment,
          RECENT_REQUESTS,
        );
        const calls = await recentModelCalls(
          db,
          member.workspaceId,
          request.environment,
          RECENT_REQUESTS,
        );
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: {
            credits: {
              balance: account.balanceCredits,
              reserved: account.reservedCredits,
              charged: account.chargedCredits,
              granted: account.grantedCredits,
            },
            grants: account.grants.map((grant) => ({
              created_at: grant.createdAt,
              credits: grant.credits,
              reason: grant.reason,
              note: grant.note,
            })),
            requests: requests.map(requestItem),
            requests_next_cursor: nextCursor(requests, RECENT_REQUESTS),
            model_calls: calls.map(modelCallItem),
            model_calls_next_cursor: nextCursor(calls, RECENT_REQUESTS),
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/usage/requests',
      operationId: 'operatorUsageRequests',
      summary:
        'The synthesis requests of the environment, newest first (older than `cursor`), and `next_cursor`.',
      roles: KEY_MANAGER_ROLES,
      query: pageQuery,
      errors: ['invalid_request'],
      handle: async ({ member, request, query }) => {
        const limit = query.limit ?? RECENT_REQUESTS;
        const before = await startAfter('synthesis_requests', member, request, query.cursor);
        const rows = await recentRequests(
          db,
          member.workspaceId,
          request.environment,
          limit,
          before,
        );
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: { requests: rows.map(requestItem), next_cursor: nextCursor(rows, limit) },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/usage/model-calls',
      operationId: 'operatorUsageModelCalls',
      summary:
        'The language-model calls of the environment, newest first (older than `cursor`), and `next_cursor`.',
      roles: KEY_MANAGER_ROLES,
      query: pageQuery,
      errors: ['invalid_request'],
      handle: async ({ member, request, query }) => {
        const limit = query.limit ?? RECENT_REQUESTS;
        const before = await startAfter('llm_requests', member, request, query.cursor);
        const rows = await recentModelCalls(
          db,
          member.workspaceId,
          request.environment,
          limit,
          before,
        );
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: { model_calls: rows.map(modelCallItem), next_cursor: nextCursor(rows, limit) },
        };
      },
    }),
  ];
}
