import type { ResponseJson } from './openapi.ts';

/** Raw 16-bit little-endian mono PCM at 16, 24 or 48 kHz. */
export type TranscriptionAudioFormat = 'pcm_16000' | 'pcm_24000' | 'pcm_48000';

/** Answer of `POST /v1/realtime-transcription-tokens`. */
export type TranscriptionToken = ResponseJson<'createRealtimeTranscriptionToken', 201>;

/** The `start` event of a realtime transcription session. */
export interface TranscriptionStartRequest {
  audio_format: TranscriptionAudioFormat;
  /** The language spoken (BCP 47: `en`, `es-MX`); omitted, the engine detects it. */
  language?: string;
  /** Interim (not final) transcripts while an utterance is spoken, where the engine has them. Default true. */
  interim_results?: boolean;
  /**
   * `vad` (default): the service ends utterances where the speaker pauses, and at each
   * `flush`. `manual`: only `flush` ends them (push-to-talk). Engines that recognize while
   * the audio streams also end utterances at their own endpoints.
   */
  endpointing?: 'vad' | 'manual';
  /** Your correlation id, 1 to 200 characters. */
  partner_session_id?: string;
}

/** The `started` event: what the session runs with. */
export interface TranscriptionStarted {
  sessionId: string;
  audioFormat: TranscriptionAudioFormat;
  /** The language as named in `start`, canonical (`es-MX`); null when detected. */
  language: string | null;
  interimResults: boolean;
  /** Who ends utterances: `vad` (the service), `engine` (a streaming engine) or `manual`. */
  endpointing: 'vad' | 'engine' | 'manual';
}

/** One `transcript` event. */
export interface Transcript {
  sessionId: string;
  /** 1, 2, 3, ...: interims carry the id of the final that will replace them. */
  segmentId: number;
  text: string;
  /** True once the segment's text is final; interims are replaced by later events. */
  final: boolean;
  /** Offsets in the session's audio, from its first sample. */
  startMs: number;
  endMs: number;
  /** The language, when the engine reported it or it was named. */
  language?: string;
}

/** The `usage` and `finish` events of a session that ended with `stop`. */
export interface TranscriptionResult {
  sessionId: string;
  auditId: string;
  /** Audio received, in milliseconds: what was charged. */
  audioMs: number;
  cost: { credits: number; amount: number; currency: string; pass_through: boolean };
}

/** One page of sessions, newest first. */
export type TranscriptionSessionList = ResponseJson<'listRealtimeTranscriptionSessions', 200>;

/** A stored session, `GET /v1/realtime-transcription-sessions` and `/{sessionId}`. */
export type TranscriptionSession = TranscriptionSessionList['sessions'][number];

/** `GET /v1/realtime-transcription-sessions/{sessionId}`: the session and its transcript. */
export type TranscriptionSessionDetail = ResponseJson<'getRealtimeTranscriptionSession', 200>;

/** A final segment of a stored session. */
export type TranscriptionSegment = TranscriptionSessionDetail['segments'][number];

/** Query of `GET /v1/realtime-transcription-sessions`. */
export interface TranscriptionSessionListQuery {
  /** The previous page's `next_cursor`. */
  cursor?: string;
  /** 1 to 100, default 20. */
  limit?: number;
}
