import type { Generated } from 'kysely';

// The synthesis audit ledger, credit grants and the running api processes.

export type SynthesisStatus = 'started' | 'succeeded' | 'failed' | 'cancelled';

/** The audit ledger: one row per synthesis request, one-shot or streaming. */
export interface SynthesisRequestsTable {
  request_id: string;
  audit_id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** The API key of the request; null for a signed-in operator's dashboard request. */
  api_key_id: string | null;
  /** Email of the signed-in operator of a dashboard (Playground) request; null otherwise. */
  operator_email: string | null;
  transport: 'http' | 'websocket';
  /** Public voice id. */
  voice_id: string;
  /** Internal route that served it (provider, model, provider voice); never shown to clients. */
  route: string;
  output_format: string;
  partner_session_id: string | null;
  context_id: string | null;
  chars_requested: number;
  chars_synthesized: Generated<number>;
  provider_audio_ms: Generated<number>;
  encoded_duration_ms: Generated<number>;
  price_millicredits_per_1k_chars: number;
  /** Credit held while the request runs; released at the end. */
  reserved_millicredits: number;
  cost_millicredits: Generated<number>;
  pass_through: number;
  status: SynthesisStatus;
  error_code: string | null;
  audio_persisted: Generated<number>;
  audio_location: string | null;
  /** Process that serves the request; lets a restarted process close rows it left open. */
  instance_id: string;
  created_at: string;
  finished_at: string | null;
}

export type CreditGrantReason = 'opening_balance' | 'workspace_created' | 'added' | 'set';

/**
 * Every credit a workspace received: balance + charges + open reservations equal the sum
 * of these. `millicredits` is negative when `credit set` lowered a balance.
 */
export interface CreditGrantsTable {
  id: string;
  workspace_id: string;
  millicredits: number;
  reason: CreditGrantReason;
  note: string | null;
  /** The balance right after the grant (reservations still open are not in it). */
  balance_after_millicredits: number;
  created_at: string;
}

/** Running api processes and their heartbeat. */
export interface ServiceInstancesTable {
  instance_id: string;
  started_at: string;
  last_seen_at: string;
}
