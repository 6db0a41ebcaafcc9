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

/** A workspace's API key at a vendor; the key itself is never sent back, only its end. */
export interface ProviderAccount {
  id: string;
  provider: 'elevenlabs' | 'fishaudio';
  label: string;
  key_last4: string;
  created_at: string;
}

/** One voice of a vendor catalog (an account's own voices or the public library). */
export interface CatalogVoice {
  provider_voice_id: string;
  name: string;
  description: string | null;
  languages: string[];
  preview_url: string | null;
  /** Set on ElevenLabs public-library voices; sent back when importing one. */
  public_owner_id: string | null;
}

/** A page of a vendor catalog; `next_page_token` is null on the last page. */
export interface CatalogPage {
  provider: 'elevenlabs' | 'fishaudio';
  voices: CatalogVoice[];
  next_page_token: string | null;
}

/** The part of a created or imported voice the creating page needs: where to go next. */
export interface CreatedVoice {
  voice: { id: string; name: string };
}
