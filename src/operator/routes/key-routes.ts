import { z } from 'zod';
import type { ApiKeyInfo, ApiKeys } from '../../auth/api-keys.ts';
import { keyPermissions } from '../../auth/key-permissions.ts';
import type { ApiKeyStore } from '../../auth/key-store.ts';
import type { AnyRoute } from '../../http/route.ts';
import { KEY_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import { operatorRoute } from '../route.ts';

/** A key as the operator API shows it: never the key itself. */
export function keyView(key: ApiKeyInfo) {
  return {
    id: key.id,
    environment: key.environment,
    label: key.label,
    prefix: key.prefix,
    status: key.status,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
    /** Null: made by the operator tool or on the first start, with every permission. */
    created_by: key.createdBy
      ? { user_id: key.createdBy.userId, email: key.createdBy.email, role: key.createdBy.role }
      : null,
    /** What the key may do beyond every key's routes (src/auth/key-permissions.ts). */
    permissions: [
      ...keyPermissions(key.createdBy?.role ?? null, key.createdBy?.currentRole ?? null),
    ],
  };
}

const createSchema = z.strictObject({
  label: z.string().min(1).max(100),
  /** Default: the environment of the listener the request came in on. */
  environment: z.enum(['production', 'development']).optional(),
});

/** API keys (the dashboard's Integrations page): list, create, revoke. */
export function keyRoutes(guard: OperatorGuard, keys: ApiKeys, keyStore: ApiKeyStore): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/keys',
      operationId: 'operatorListKeys',
      summary: 'The workspace’s keys: prefix, status and last use; never the key.',
      roles: KEY_MANAGER_ROLES,
      handle: async ({ member }) => ({
        status: 200,
        body: { keys: (await keys.list(member.workspaceId)).map(keyView) },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/keys',
      operationId: 'operatorCreateKey',
      summary:
        'Creates a key with the permissions of the creating member’s role; the full key is in this answer only.',
      roles: KEY_MANAGER_ROLES,
      body: createSchema,
      handle: async ({ member, body, request }) => {
        const created = await keys.create(
          member.workspaceId,
          body.environment ?? request.environment,
          body.label,
          { userId: member.userId, role: member.role },
        );
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: { key: { ...keyView(created), secret: created.key } },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/keys/:keyId/revoke',
      operationId: 'operatorRevokeKey',
      summary: 'Revokes a key; every api process refuses it within one second.',
      roles: KEY_MANAGER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const revoked = await keys.revoke(member.workspaceId, request.params.keyId ?? '');
        // This process refuses it at once; the others when their cache entry expires.
        keyStore.invalidate();
        return { status: 200, body: { key: keyView(revoked) } };
      },
    }),
  ];
}
