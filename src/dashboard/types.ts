/** Shapes of the operator API's answers (snake_case, as on the wire). */

export type Role = 'owner' | 'admin' | 'builder' | 'member';

export interface Member {
  user_id: string;
  email: string;
  workspace_id: string;
  role: Role;
  session_expires_at: string;
}

export interface Me {
  member: Member;
  environment: 'production' | 'development';
}

export interface ApiKey {
  id: string;
  environment: 'production' | 'development';
  label: string;
  prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Roles that may create and revoke keys (spec, Authentication rule 4). */
export const KEY_MANAGER_ROLES: readonly Role[] = ['owner', 'admin', 'builder'];
/** Roles that may create, clone, import and configure voices (spec, voice management rule 1). */
export const VOICE_MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
