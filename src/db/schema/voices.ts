import type { UpstreamProviderKind } from '../../tts/providers/upstream-registry.ts';

// Provider accounts, workspace voices, their routes, samples and clone History.

/** Upstream vendors a voice route can use besides the native model. */
export type UpstreamProviderName = UpstreamProviderKind;

/** A workspace's own credential at an upstream vendor. */
export interface ProviderAccountsTable {
  id: string;
  workspace_id: string;
  provider: UpstreamProviderName;
  label: string;
  /** The API key sealed with the deployment's secrets key (see src/secrets/). */
  api_key_ciphertext: string;
  /** Last four characters of the key, for operators telling accounts apart. */
  api_key_last4: string;
  created_at: string;
  updated_at: string;
}

/** A workspace voice (imported or cloned); built-in native voices are not stored. */
export interface VoicesTable {
  /** Public `voice_id`. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  name: string;
  nsfw: number;
  default_route_id: string | null;
  created_at: string;
  updated_at: string;
}

export type VoiceRouteState = 'ready' | 'cloning' | 'failed' | 'blocked' | 'update_available';

/** What serves a route: an upstream vendor or the service's own (native) model. */
export type VoiceRouteProvider = UpstreamProviderName | 'native';

/** One provider-and-model pairing serving a voice. Never shown to synthesis clients. */
export interface VoiceRoutesTable {
  id: string;
  voice_id: string;
  provider: VoiceRouteProvider;
  model: string;
  /** Vendor voice id, or the derived native voice reference; '' while the first clone runs. */
  provider_voice_id: string;
  /** Workspace provider account; null uses the deployment's credential. */
  provider_account_id: string | null;
  state: VoiceRouteState;
  enabled: number;
  /** JSON string array of capabilities; null on routes older than cloning (from the model). */
  capabilities: string | null;
  /** JSON string array of output formats; null on routes older than cloning (from the model). */
  output_formats: string | null;
  /** JSON string array of the sample ids the provider voice was built from. */
  sample_ids: string | null;
  /** Short operator-facing reason of the last failure or of a block. */
  failure_summary: string | null;
  /** Technical detail of the last failure (vendor status, code, message). */
  failure_detail: string | null;
  /** Who blocked the route: `operator` or `provider`. */
  blocked_by: string | null;
  created_at: string;
  updated_at: string;
}

/** An authorized recording of a voice's speaker (stored audio plus exact transcript). */
export interface VoiceSamplesTable {
  id: string;
  voice_id: string;
  workspace_id: string;
  /** Key in the sample store: `{workspace_id}/{voice_id}/{id}.{ext}`. */
  object_key: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  duration_ms: number;
  sample_rate_hz: number;
  /** BCP 47 language of the speech. */
  language: string;
  transcript: string;
  /** Who confirmed the speaker's permission (operator email or name). */
  permission_confirmed_by: string;
  permission_confirmed_at: string;
  created_at: string;
}

export type CloneAttemptOperation = 'create' | 'append' | 'rebuild' | 'derive';
export type CloneAttemptState = 'queued' | 'running' | 'succeeded' | 'failed';

/** One clone submission of one route: the History of the spec. */
export interface VoiceCloneAttemptsTable {
  id: string;
  voice_id: string;
  route_id: string;
  provider: VoiceRouteProvider;
  operation: CloneAttemptOperation;
  state: CloneAttemptState;
  /** JSON string array: the samples this attempt sends (all, or only new ones for append). */
  sample_ids: string;
  /** The name sent to the vendor; found again by listing when a retry follows a crash. */
  vendor_name: string;
  /** Set just before the vendor request leaves; a retry with it set reconciles first. */
  vendor_request_at: string | null;
  provider_voice_id: string | null;
  failure_summary: string | null;
  failure_detail: string | null;
  requested_by: string;
  created_at: string;
  finished_at: string | null;
}

/** One successful Playground generation: the voice's generation History. */
export interface VoiceGenerationsTable {
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** Public voice id (built-in or workspace voice). */
  voice_id: string;
  /** The voice route that produced the audio; null for built-in voices. */
  route_id: string | null;
  provider: string;
  /** Null where the provider takes no model (native engines). */
  model: string | null;
  /** The ledger row (`synthesis_requests.request_id`) that charged it. */
  request_id: string;
  text: string;
  output_format: string;
  speed: number | null;
  /** JSON string array of the request-wide voice tags sent, or null. */
  voice_tags: string | null;
  /** 1 when the route could not apply tags and they were removed. */
  tags_skipped: number;
  content_type: string;
  duration_ms: number;
  size_bytes: number;
  cost_millicredits: number;
  /** Key of the audio in the audio store. */
  object_key: string;
  /** Email of the operator who generated it. */
  created_by: string;
  created_at: string;
}
