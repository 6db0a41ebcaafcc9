import type { Generated } from 'kysely';

export type TranscriptionSessionStatus = 'active' | 'ended' | 'failed';

/** One realtime transcription session (one WebSocket that sent `start`). */
export interface TranscriptionSessionsTable {
  /** UUIDv7; also the `request_id` of the session's error events. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** The workspace key that opened it, or that minted its token. */
  api_key_id: string;
  /** The api process running it; the heartbeat sweep closes sessions of dead ones. */
  instance_id: string;
  status: TranscriptionSessionStatus;
  /** The `error` event's code when it failed. */
  error_code: string | null;
  /** `STT_PROVIDER` of the process that ran it (internal: never in API answers). */
  engine: string;
  /** `pcm_16000`, `pcm_24000` or `pcm_48000`. */
  audio_format: string;
  /** The language the client named (BCP 47), null when the engine detected it. */
  language: string | null;
  partner_session_id: string | null;
  /** Audio received, in milliseconds (while active: as of the last reservation). */
  audio_ms: Generated<number>;
  price_millicredits_per_minute: number;
  /** Credit held while active; 0 once the session ended. */
  reserved_millicredits: Generated<number>;
  /** Debited when it ended. */
  charged_millicredits: Generated<number>;
  audit_id: string;
  started_at: string;
  ended_at: string | null;
}

/** One final transcript segment of a session. */
export interface TranscriptionSegmentsTable {
  session_id: string;
  /** 1, 2, 3, ... in the order the segments were delivered. */
  segment_id: number;
  text: string;
  /** Offsets in the session's audio, from its first sample. */
  start_ms: number;
  end_ms: number;
  language: string | null;
  created_at: string;
}
