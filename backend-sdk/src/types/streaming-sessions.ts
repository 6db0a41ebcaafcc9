/** A client's playback session (`/v1/streaming-sessions`). */
export interface StreamingSession {
  id: string;
  /** Send it as `partner_session_id` with the session's speech requests. */
  partner_session_id: string;
  status: 'active' | 'ended';
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  /** The speech requests sent with its `partner_session_id`, as the ledger has them. */
  usage: {
    requests: number;
    succeeded: number;
    failed: number;
    cancelled: number;
    running: number;
    chars: number;
    audio_ms: number;
    credits: number;
  };
  events: { count: number; by_type: Record<string, number> };
}

export interface StreamingSessionList {
  sessions: StreamingSession[];
  next_cursor: string | null;
}

/** A playback event to report. */
export interface StreamingSessionEventInput {
  /** `playback_started`, `first_audio_played`, `underrun`, `interrupted`, `playback_finished`, `error`, or your own. */
  type: string;
  /** ISO 8601; default: when the service receives it. */
  occurred_at?: string;
  request_id?: string;
  data?: Record<string, unknown>;
}

export interface StreamingSessionEvent {
  seq: number;
  type: string;
  occurred_at: string;
  request_id: string | null;
  data: Record<string, unknown> | null;
  received_at: string;
}

export interface StreamingSessionEventList {
  session_id: string;
  events: StreamingSessionEvent[];
  next_cursor: string | null;
}
