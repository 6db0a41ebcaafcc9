import type { Kysely } from 'kysely';
import { CreditGrants } from '../../billing/grants.ts';
import { recentModelCalls, recentRequests } from '../../billing/usage.ts';
import type { Database } from '../../db/schema.ts';
import type { AnyRoute } from '../../http/route.ts';
import { KEY_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import { operatorRoute } from '../route.ts';

/** Requests (and language-model calls) the Usage page lists. */
const RECENT_REQUESTS = 50;

/**
 * Usage (the dashboard's Config › Usage page): the workspace's credit as `awp credit show`
 * reports it (1,000 credits = 1 USD), its recent grants, and the newest synthesis requests
 * and language-model calls of the listener's environment.
 */
export function usageRoutes(guard: OperatorGuard, db: Kysely<Database>): AnyRoute[] {
  const grants = new CreditGrants(db);
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/usage',
      operationId: 'operatorUsage',
      summary:
        'Credit balance, reserved, charged and granted; recent grants, requests and language-model calls.',
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
            requests: requests.map((entry) => ({
              request_id: entry.requestId,
              created_at: entry.createdAt,
              voice_id: entry.voiceId,
              characters: entry.characters,
              credits: entry.credits,
              status: entry.status,
              caller: entry.caller,
            })),
            model_calls: calls.map((call) => ({
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
            })),
          },
        };
      },
    }),
  ];
}
