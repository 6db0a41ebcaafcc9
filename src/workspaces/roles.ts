// Which workspace roles may do what: read by the operator API and, as the same module, by
// the dashboard that hides what a role may not use. No runtime imports: it is bundled into
// the browser app.
import type { Role } from '../db/schema/accounts.ts';

export const ROLES = ['owner', 'admin', 'builder', 'member'] as const satisfies readonly Role[];

/** Roles that may create, list and revoke API keys, and read usage. */
export const KEY_MANAGER_ROLES: readonly Role[] = ['owner', 'admin', 'builder'];
/** Roles that may create, clone, import and configure voices. */
export const VOICE_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
/**
 * Roles that may add and remove members, change roles and reset passwords: an Owner on
 * every member, an Admin on Builders and Members (src/workspaces/member-admin.ts).
 */
export const MEMBER_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
/** Roles that may create, edit and publish Agents in the dashboard. */
export const AGENT_BUILDER_ROLES: readonly Role[] = ['owner', 'admin', 'builder'];
/**
 * The one rule for end users' private data: their words (the transcripts of live Agent
 * sessions and realtime transcription sessions), the documents an end user owns and what an
 * Agent remembers about an end user. Those who build Agents read them; the Member role,
 * which browses and generates, does not.
 */
export function mayReadEndUserData(role: Role): boolean {
  return role !== 'member';
}
/** The roles {@link mayReadEndUserData} admits, for routes that are wholly end-user data. */
export const END_USER_DATA_READER_ROLES: readonly Role[] = ROLES.filter(mayReadEndUserData);
/**
 * Roles that may read streaming sessions: a session's usage is what the workspace's keys
 * spent, as on Usage.
 */
export const SESSION_READER_ROLES: readonly Role[] = ['owner', 'admin', 'builder'];
/** Roles that may delete an Agent (with its sessions, recordings, documents and memories). */
export const AGENT_DELETER_ROLES: readonly Role[] = ['owner', 'admin'];
/** Roles that may delete an Agent session's recording (an end user's voice). */
export const RECORDING_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
/**
 * Roles that may see and manage webhook endpoints: an endpoint receives every session's
 * transcript, so only those who manage the workspace choose where it goes.
 */
export const WEBHOOK_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
