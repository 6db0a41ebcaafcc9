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
 * Roles that may read realtime transcription sessions and streaming sessions: transcripts
 * are end users' words and a session's usage is what the workspace's keys spent, as on
 * Agents › Sessions and Usage.
 */
export const SESSION_READER_ROLES: readonly Role[] = ['owner', 'admin', 'builder'];
/** Roles that may delete a live session's recording (an end user's voice). */
export const RECORDING_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
/**
 * Roles that may see and manage webhook endpoints: an endpoint receives every session's
 * transcript, so only those who manage the workspace choose where it goes.
 */
export const WEBHOOK_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
