export type StreamingSessionStatus = 'active' | 'ended';

/** A client's streaming session, reported over `/v1/streaming-sessions`. */
export interface StreamingSessionsTable {
  /** UUIDv7. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** The key that opened it. */
  api_key_id: string | null;
  /** Speech requests sent with this `partner_session_id` belong to the session. */
  partner_session_id: string;
  status: StreamingSessionStatus;
  /** JSON object the client attached. */
  metadata: string;
  event_count: number;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

/** One playback event a client reported for its session. */
export interface StreamingSessionEventsTable {
  /** UUIDv7. */
  id: string;
  session_id: string;
  /** 1, 2, 3 ... in the order the service received them. */
  seq: number;
  type: string;
  /** When it happened, by the client's clock. */
  occurred_at: string;
  /** The speech request it is about, when the client says. */
  request_id: string | null;
  /** JSON object, or null. */
  data: string | null;
  received_at: string;
}
