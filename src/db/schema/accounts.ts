// Workspaces, people, operator sign-in and API keys.

export type WorkspaceStatus = 'active' | 'suspended';

export interface WorkspacesTable {
  id: string;
  name: string;
  status: WorkspaceStatus;
  /** 1 once the billing account is provisioned. */
  billing_provisioned: number;
  /** Balance in millicredits (1 credit = 1,000 millicredits; 1,000 credits = 1 USD). */
  credit_balance_millicredits: number;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceCapabilitiesTable {
  workspace_id: string;
  capability: string;
}

export interface UsersTable {
  id: string;
  email: string;
  created_at: string;
  /** scrypt hash of the operator password (src/operator/passwords.ts); null: cannot sign in. */
  password_hash: string | null;
}

/** A signed-in operator; the cookie holds the id, this row only its SHA-256. */
export interface OperatorSessionsTable {
  id_hash: string;
  user_id: string;
  workspace_id: string;
  created_at: string;
  expires_at: string;
}

export type Role = 'owner' | 'admin' | 'builder' | 'member';

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  label: string;
  /** First characters of the key, shown in listings. */
  display_prefix: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  status: ApiKeyStatus;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The member who created the key in the dashboard; null: the operator tool or first start. */
  created_by_user_id: string | null;
  /** That member's role when they created it; null with `created_by_user_id`. */
  created_by_role: Role | null;
}

/** Facts about the deployment, one row per name (`bootstrap_workspace_id`). */
export interface DeploymentSettingsTable {
  name: string;
  value: string;
}
