import { z } from 'zod';
import type {
  WorkspaceSearchKeys,
  WorkspaceSearchKeyView,
} from '../../agents/capabilities/websearch/workspace-search-keys.ts';
import type { AnyRoute } from '../../http/route.ts';
import { MEMBER_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import { operatorRoute } from '../route.ts';

/** The key as operators see it: never echoed, only its last four characters. */
function keyView(view: WorkspaceSearchKeyView | null) {
  return view === null ? null : { key_last4: view.keyLast4, updated_at: view.updatedAt };
}

const setSchema = z.strictObject({ api_key: z.string().trim().min(1).max(512) });

/**
 * The workspace's own web-search key (a Brave Search API key): with one, its Agents'
 * searches use it and are not charged. Owner and Admin only, as it spends on their
 * account at the engine.
 */
export function webSearchKeyRoutes(guard: OperatorGuard, keys: WorkspaceSearchKeys): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/web-search-key',
      operationId: 'operatorGetWebSearchKey',
      summary: 'Whether the workspace searches the web with its own key.',
      roles: MEMBER_MANAGER_ROLES,
      handle: async ({ member }) => ({
        status: 200,
        body: { web_search_key: keyView(await keys.view(member.workspaceId)) },
      }),
    }),
    operatorRoute(guard, {
      method: 'PUT',
      path: '/web-search-key',
      operationId: 'operatorSetWebSearchKey',
      summary: 'Stores the workspace’s own Brave Search key, sealed at rest.',
      roles: MEMBER_MANAGER_ROLES,
      body: setSchema,
      handle: async ({ member, body }) => ({
        status: 200,
        body: { web_search_key: keyView(await keys.set(member.workspaceId, body.api_key)) },
      }),
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/web-search-key',
      operationId: 'operatorClearWebSearchKey',
      summary: 'Removes the workspace’s own search key: searches use the deployment’s again.',
      roles: MEMBER_MANAGER_ROLES,
      handle: async ({ member }) => {
        await keys.clear(member.workspaceId);
        return { status: 204 };
      },
    }),
  ];
}
