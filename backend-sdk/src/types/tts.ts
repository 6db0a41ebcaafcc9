import type { RequestJson, ResponseJson } from './openapi.ts';
import type { OutputFormat } from './voices.ts';

/** Optional synthesis parameters. */
export interface SynthesisParams {
  /** Speaking-speed multiplier; 1 is normal. */
  speed?: number;
  /** One or two request-wide cues, bare values without brackets (voices with `voice_tags`). */
  voice_tags?: string[];
}

/** Body of `POST /v1/tts`. */
export interface SynthesizeRequest {
  /** Complete text, at most 20,000 characters; empty only with `params.voice_tags`. */
  text: string;
  voice_id: string;
  output_format: OutputFormat;
  /** External correlation id (1 to 200 characters). */
  partner_session_id?: string;
  /** Your turn or playback-context id. */
  context_id?: string;
  params?: SynthesisParams;
}

/** Which route of a voice served a request; never a provider or model. */
export type VoiceRoute = 'default' | 'fallback';

/** What `client.tts.synthesize` resolves with: the audio and the audit headers. */
export interface SynthesizeResult {
  /** The encoded audio, exactly as delivered. */
  audio: Uint8Array;
  /** Delivered format (`X-Audio-Format`, authoritative). */
  format: OutputFormat;
  /** `Content-Type` of the audio. */
  contentType: string;
  /** Server-assigned request id (`X-Request-Id`). */
  requestId: string;
  /** Audit ledger id (`X-Audit-Id`). */
  auditId: string;
  /** Duration of encoded playback (`X-Audio-Duration-Ms`). */
  durationMs: number;
  /** Credits the request cost (`X-Charge-Credits`); undefined from services without it. */
  chargeCredits: number | undefined;
  /**
   * Which route of the voice served (`X-Voice-Route`): `default`, the variant its catalog
   * entry describes, or `fallback` after a failover (voice tags dropped when that route
   * has none). Undefined from services without it.
   */
  voiceRoute: VoiceRoute | undefined;
}

/**
 * Body of `POST /v1/tts/with-timestamps`: the one-shot body and `alignment` (`word`, the
 * default, or `char`; the voice must list `word_alignment` / `char_alignment`).
 */
export type SynthesizeWithTimestampsRequest = Extract<
  RequestJson<'synthesizeWithTimestamps'>,
  { voice_id: string }
>;

/** The JSON answer of `POST /v1/tts/with-timestamps`, as the service sends it. */
export type SynthesizeWithTimestampsJson = ResponseJson<'synthesizeWithTimestamps', 200>;

/** What `client.tts.synthesizeWithTimestamps` resolves with: the audio and its timings. */
export interface SynthesizeWithTimestampsResult {
  /** The encoded audio (base64-decoded). */
  audio: Uint8Array;
  /** Delivered format (authoritative). */
  format: OutputFormat;
  requestId: string;
  auditId: string;
  /** Duration of encoded playback. */
  durationMs: number;
  /** Credits the request cost (`X-Charge-Credits`); undefined from services without it. */
  chargeCredits: number | undefined;
  /** Which route of the voice served. */
  voiceRoute: VoiceRoute;
  /** The granularity of `timings`. */
  alignment: SynthesizeWithTimestampsJson['alignment'];
  /** Each word or character of the text and when the audio speaks it, in order. */
  timings: Timing[];
}

/** Answer of `POST /v1/tts/stream-tokens`. */
export interface TtsStreamToken {
  /** Opens `/v1/tts/stream` (query `token` or bearer) until `expires_at`. */
  token: string;
  /** End of the 2-minute validity (ISO 8601). */
  expires_at: string;
  /** Streaming URL to open. */
  websocket_url: string;
  capabilities: {
    tts_stream: true;
    tts_one_shot: false;
    environment: 'production' | 'development';
  };
}

/** The `start` request of a TTS stream (the service assigns `request_id`). */
export interface StreamStartRequest {
  voice_id: string;
  output_format: OutputFormat;
  /** External audit correlation id, 1 to 200 characters. */
  partner_session_id?: string;
  /** Echoed on every audio event. */
  context_id?: string;
  params?: SynthesisParams;
  /**
   * Ask for the timing of each word (`word`) or character (`char`): every chunk then has
   * `timings`. The voice must list `word_alignment` / `char_alignment` in its capabilities.
   */
  alignment?: 'word' | 'char';
}

/** When a word or character is spoken, in milliseconds of the request's audio. */
export interface Timing {
  /** The word or character, as your text has it. */
  text: string;
  /** Start, from the first sample of the request's audio (all flushes on one timeline). */
  start_ms: number;
  end_ms: number;
}

/** One decoded `audio` event of a TTS stream. */
export interface AudioChunk {
  /** One-based position across the whole request; checked to be gapless. */
  seq: number;
  /** The audio bytes (base64-decoded). */
  audio: Uint8Array;
  /** Delivered format (authoritative). */
  format: OutputFormat;
  /** The service's request id. */
  requestId: string;
  /** Your `context_id`, when you sent one. */
  contextId?: string;
  /**
   * With `alignment`: the words or characters whose start this chunk's audio reaches, each
   * once. The last chunk may carry timings and no audio.
   *
   * @example
   * for await (const chunk of stream) for (const t of chunk.timings ?? []) caption(t.text, t.start_ms);
   */
  timings?: Timing[];
}

/** The `usage` and `finish` events of a TTS stream that succeeded. */
export interface StreamResult {
  requestId: string;
  auditId: string;
  /** `stop`. */
  reason: string;
  usage: {
    /** Characters synthesized. */
    chars: number;
    /** Provider audio duration kept for audit and cost. */
    audio_ms: number;
  };
  voiceId: string;
  cost: { amount: number; currency: string; pass_through: boolean };
  /** Snapshot at finish time (storage is best effort, after finish). */
  audioPersisted: boolean;
  /** Audio chunks delivered. */
  chunks: number;
  /** Which route of the voice served (`voice_route` of `finish`); see {@link SynthesizeResult}. */
  voiceRoute: VoiceRoute | undefined;
}
