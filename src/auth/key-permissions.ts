import type { Role } from '../db/schema.ts';
import {
  AGENT_DELETER_ROLES,
  RECORDING_MANAGER_ROLES,
  WEBHOOK_MANAGER_ROLES,
} from '../workspaces/roles.ts';

/**
 * What a workspace key may do beyond the routes every key calls: the powers the dashboard
 * keeps from some roles. A key holds those its creator's role holds, as project keys with
 * restricted permissions do in the large hosted AI APIs.
 */
export const KEY_PERMISSIONS = ['manage_webhooks', 'delete_agents', 'delete_recordings'] as const;
export type KeyPermission = (typeof KEY_PERMISSIONS)[number];

/** The roles that hold each permission in the dashboard. */
const PERMISSION_ROLES: Record<KeyPermission, readonly Role[]> = {
  manage_webhooks: WEBHOOK_MANAGER_ROLES,
  delete_agents: AGENT_DELETER_ROLES,
  delete_recordings: RECORDING_MANAGER_ROLES,
};

const RANK: Record<Role, number> = { owner: 3, admin: 2, builder: 1, member: 0 };

/** Every permission: keys made by the operator tool or on the first start. */
export const ALL_KEY_PERMISSIONS: ReadonlySet<KeyPermission> = new Set(KEY_PERMISSIONS);

/**
 * The permissions of a key created by a member of `creatorRole` (null: the operator tool or
 * the first start, every permission). `currentRole` is the creator's role now (null when
 * they are no member any more): a key never gains power when its creator is promoted, and
 * loses it when they are demoted.
 */
export function keyPermissions(
  creatorRole: Role | null,
  currentRole: Role | null,
): ReadonlySet<KeyPermission> {
  if (creatorRole === null) return ALL_KEY_PERMISSIONS;
  const role =
    currentRole !== null && RANK[currentRole] < RANK[creatorRole] ? currentRole : creatorRole;
  return new Set(
    KEY_PERMISSIONS.filter((permission) => PERMISSION_ROLES[permission].includes(role)),
  );
}
