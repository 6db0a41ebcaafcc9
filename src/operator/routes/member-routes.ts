import { z } from 'zod';
import type { ApiKeys } from '../../auth/api-keys.ts';
import type { ApiKeyStore } from '../../auth/key-store.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { MemberAdmin, MemberView } from '../../workspaces/member-admin.ts';
import { MEMBER_MANAGER_ROLES, ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';
import { keyView } from './key-routes.ts';

function memberView(member: MemberView) {
  return {
    user_id: member.userId,
    email: member.email,
    role: member.role,
    added_at: member.addedAt,
    can_sign_in: member.canSignIn,
  };
}

const roleSchema = z.enum(ROLES);
const addSchema = z.strictObject({ email: z.string().min(3).max(254), role: roleSchema });
const changeSchema = z.strictObject({ role: roleSchema });

function actorOf(member: OperatorPrincipal) {
  return { userId: member.userId, workspaceId: member.workspaceId, role: member.role };
}

/** Answers that carry a generated password: never cached. */
const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Members (the dashboard's Config › Members page): everyone sees who is in the workspace;
 * Owners and Admins add members, change roles, remove members and reset passwords, under
 * the rules of src/workspaces/member-admin.ts.
 */
export function memberRoutes(
  guard: OperatorGuard,
  admin: MemberAdmin,
  keys: { apiKeys: ApiKeys; store: ApiKeyStore },
): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/members',
      operationId: 'operatorListMembers',
      summary: 'The workspace’s members: email, role, when added and whether they can sign in.',
      roles: EVERY_ROLE,
      handle: async ({ member }) => ({
        status: 200,
        body: { members: (await admin.list(member.workspaceId)).map(memberView) },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/members',
      operationId: 'operatorAddMember',
      summary:
        'Adds a user of no other workspace by email with a role, and a generated password, in this answer only.',
      roles: MEMBER_MANAGER_ROLES,
      body: addSchema,
      errors: ['invalid_request', 'forbidden', 'conflict'],
      handle: async ({ member, body }) => {
        const issued = await admin.add(actorOf(member), body.email, body.role);
        return {
          status: 201,
          headers: NO_STORE,
          body: { member: memberView(issued.member), password: issued.password },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'PATCH',
      path: '/members/:userId',
      operationId: 'operatorChangeMemberRole',
      summary: 'Changes a member’s role; the last Owner keeps theirs.',
      roles: MEMBER_MANAGER_ROLES,
      body: changeSchema,
      errors: ['invalid_request', 'forbidden', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => ({
        status: 200,
        body: {
          member: memberView(
            await admin.changeRole(actorOf(member), request.params.userId ?? '', body.role),
          ),
        },
      }),
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/members/:userId',
      operationId: 'operatorRemoveMember',
      summary:
        'Removes a member, ends their sessions in the workspace and revokes the API keys they created (listed in `revoked_keys`); never the last Owner.',
      roles: MEMBER_MANAGER_ROLES,
      errors: ['forbidden', 'not_found', 'conflict'],
      handle: async ({ member, request }) => {
        const removed = await admin.remove(actorOf(member), request.params.userId ?? '');
        // Through the one revocation path, key by key, after the removal succeeded.
        const revoked = await keys.apiKeys.revokeCreatedBy(member.workspaceId, removed.userId);
        // This process refuses them at once; the others when their cache entry expires.
        if (revoked.length > 0) keys.store.invalidate();
        return {
          status: 200,
          body: { member: memberView(removed), revoked_keys: revoked.map(keyView) },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/members/:userId/password',
      operationId: 'operatorResetMemberPassword',
      summary:
        'A new generated password for a member of this workspace alone, in this answer only; their sessions end.',
      roles: MEMBER_MANAGER_ROLES,
      errors: ['forbidden', 'not_found', 'conflict'],
      handle: async ({ member, request }) => {
        const issued = await admin.resetPassword(actorOf(member), request.params.userId ?? '');
        return {
          status: 200,
          headers: NO_STORE,
          body: { member: memberView(issued.member), password: issued.password },
        };
      },
    }),
  ];
}
