/** Shapes of the operator API's answers (snake_case, as on the wire). */

import type { Role } from '../src/db/schema/accounts.ts';

export {
  AGENT_BUILDER_ROLES,
  END_USER_DATA_READER_ROLES,
  KEY_MANAGER_ROLES,
  MEMBER_MANAGER_ROLES,
  mayReadEndUserData,
  RECORDING_MANAGER_ROLES,
  ROLES,
  SESSION_READER_ROLES,
  VOICE_MANAGER_ROLES,
  WEBHOOK_MANAGER_ROLES,
} from '../src/workspaces/roles.ts';
export type { Role };

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
  /** Whether this address serves the demo page (`/demo`). */
  demo_page: boolean;
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
  /** The member who created it in the dashboard; null: the operator tool or first start. */
  created_by: { user_id: string; email: string | null; role: Role } | null;
  /** What it may do beyond every key's routes, from its creator's role. */
  permissions: string[];
}

/** States of a voice route (spec, Voice route states). */
export type VoiceRouteState = 'ready' | 'cloning' | 'failed' | 'blocked' | 'update_available';

/** Where a voice route synthesizes: an upstream vendor or the native model. */
export type VoiceProvider = 'elevenlabs' | 'fishaudio' | 'native';

/** One provider-and-model pairing of a voice (`voiceView` of the operator API). */
export interface VoiceRoute {
  id: string;
  provider: VoiceProvider;
  model: string;
  provider_voice_id: string;
  provider_account_id: string | null;
  state: VoiceRouteState;
  /** Why the route Failed or was Blocked; null otherwise. */
  failure_summary: string | null;
  /** Who blocked the route: `operator` or `provider`. */
  blocked_by: string | null;
  enabled: boolean;
  is_default: boolean;
  created_at: string;
}

/** A voice of the workspace in this environment, with its routes. */
export interface Voice {
  id: string;
  name: string;
  nsfw: boolean;
  environment: 'production' | 'development';
  created_at: string;
  default_route_id: string | null;
  /** What clients are offered; null when no Ready enabled route serves the voice. */
  offered: { output_formats: string[]; capabilities: string[] } | null;
  routes: VoiceRoute[];
}

/** A source recording of a voice (`sampleView`). */
export interface VoiceSample {
  id: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  duration_ms: number;
  sample_rate_hz: number;
  language: string;
  transcript: string;
  permission_confirmed_by: string;
  permission_confirmed_at: string;
  created_at: string;
}

/** One clone submission of one route, as History lists it (`attemptView`). */
export interface CloneAttempt {
  id: string;
  route_id: string;
  provider: VoiceProvider;
  operation: 'create' | 'append' | 'rebuild' | 'derive';
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  sample_ids: string[];
  provider_voice_id: string | null;
  failure_summary: string | null;
  /** Technical details of a failure (vendor status and message). */
  failure_detail: string | null;
  requested_by: string;
  created_at: string;
  finished_at: string | null;
}

/** A Playground generation kept in a voice's History; `audio_url` plays it. */
export interface VoiceGeneration {
  id: string;
  voice_id: string;
  /** The route that produced it; null for built-in voices. */
  route_id: string | null;
  provider: string;
  model: string | null;
  text: string;
  output_format: string;
  speed: number | null;
  content_type: string;
  duration_ms: number;
  created_by: string;
  created_at: string;
  audio_url: string;
}

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

/** `GET /operator/api/usage`: amounts in credits (1,000 credits = 1 USD). */
export interface Usage {
  credits: { balance: number; reserved: number; charged: number; granted: number };
  grants: { created_at: string; credits: number; reason: string; note: string | null }[];
  requests: UsageRequest[];
  /** The cursor of `GET /usage/requests` for the requests older than these; null when none. */
  requests_next_cursor: string | null;
  /** Language-model calls of text conversations, newest first. */
  model_calls: UsageModelCall[];
  /** The cursor of `GET /usage/model-calls` for the calls older than these; null when none. */
  model_calls_next_cursor: string | null;
}

/** One synthesis request of `GET /usage` and `GET /usage/requests`. */
export interface UsageRequest {
  request_id: string;
  created_at: string;
  voice_id: string;
  characters: number;
  credits: number;
  status: string;
  caller: string | null;
}

/** One language-model call of `GET /usage` and `GET /usage/model-calls`. */
export interface UsageModelCall {
  request_id: string;
  created_at: string;
  agent_id: string | null;
  agent_slug: string | null;
  source: string;
  llm_provider: string;
  llm_model: string;
  input_tokens: number;
  output_tokens: number;
  credits: number;
  status: string;
  caller: string | null;
}
