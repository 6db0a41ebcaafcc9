/**
 * The events of the api's two WebSocket streams, as JSON on the wire (snake_case): the TTS
 * stream (`/v1/tts/stream`) and realtime transcription (`/v1/realtime-transcription`). The
 * api sends them; the SDKs decode them. The error event is the spec's error object.
 */
import type { ErrorCode } from './errors.ts';

/** The spec's error object, sent on HTTP and as a stream's `error` event. */
export interface ErrorEvent {
  event: 'error';
  request_id: string;
  code: ErrorCode;
  retryable: boolean;
  detail: string;
}

/** What a stream cost, in its `finish` event. */
export interface StreamCost {
  amount: number;
  currency: string;
  pass_through: boolean;
}

/** Client events of the TTS stream, by name. */
export type TtsClientEventName = 'start' | 'text' | 'flush' | 'stop';

/** Server events of the TTS stream. */
export type TtsServerEvent =
  | {
      event: 'audio';
      request_id: string;
      context_id?: string;
      /** 1, 2, ... with no gap: a gap or repeat means audio was lost or duplicated. */
      seq: number;
      /** The audio bytes, base64. */
      audio: string;
      format: string;
    }
  | {
      event: 'usage';
      request_id: string;
      usage: { chars: number; audio_ms: number };
      voice_id: string;
    }
  | {
      event: 'finish';
      request_id: string;
      reason: 'stop';
      cost: StreamCost;
      audit_id: string;
      audio_persisted: boolean;
      voice_route: 'default' | 'fallback' | (string & {});
    }
  | ErrorEvent;

/** Raw 16-bit little-endian mono PCM formats a transcription session takes, with their rates. */
export const TRANSCRIPTION_AUDIO_FORMATS = {
  pcm_16000: 16_000,
  pcm_24000: 24_000,
  pcm_48000: 48_000,
} as const;

export type TranscriptionAudioFormat = keyof typeof TRANSCRIPTION_AUDIO_FORMATS;

/** How a session finds the end of an utterance, as the api reports it. */
export type TranscriptionEndpointing = 'vad' | 'manual' | 'engine';

/** Largest client frame of a transcription session, text or binary; bigger ones close 1009. */
export const TRANSCRIPTION_MAX_FRAME_BYTES = 64 * 1024;

/** Client events of realtime transcription, by name (`audio` also as binary frames). */
export type TranscriptionClientEventName = 'start' | 'audio' | 'flush' | 'stop';

/** Server events of realtime transcription. */
export type TranscriptionServerEvent =
  | {
      event: 'started';
      session_id: string;
      audio_format: TranscriptionAudioFormat;
      language: string | null;
      interim_results: boolean;
      endpointing: TranscriptionEndpointing;
    }
  | {
      event: 'transcript';
      session_id: string;
      /** 1, 2, ... counting finals; an interim has the id of its coming final. */
      segment_id: number;
      text: string;
      final: boolean;
      start_ms: number;
      end_ms: number;
      language?: string;
    }
  | { event: 'flushed'; session_id: string }
  | { event: 'usage'; session_id: string; usage: { audio_ms: number } }
  | {
      event: 'finish';
      session_id: string;
      reason: 'stop';
      cost: StreamCost & { credits: number };
      audit_id: string;
    }
  | (ErrorEvent & { session_id: string });
