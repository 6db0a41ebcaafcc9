/** A workspace's own web-search key (Brave Search), sealed with the deployment's secrets key. */
export interface WorkspaceSearchKeysTable {
  workspace_id: string;
  /** `SecretBox.seal(key, workspace_id)`. */
  sealed_key: string;
  updated_at: string;
}
