import type { TranscriptionAudioFormat, TranscriptionEndpointing } from '@awp/protocol';
import type { TranscriptionError } from './errors.ts';

/** State of a {@link TranscriptionClient}'s session. */
export type TranscriptionConnectionState =
  /** No session: before `start()`, and after `finish`, an error or `close()`. */
  | 'disconnected'
  /** `start()` is opening the audio source and the socket. */
  | 'connecting'
  /** The api started the session: audio streams, transcripts arrive. */
  | 'connected'
  /** `stop()` was called: the rest is transcribed, `finish` follows. */
  | 'stopping';

/** How the session finds the end of an utterance, as the api reports it. */
export type { TranscriptionEndpointing } from '@awp/protocol';

/** The api started the session (its `started` event, camelCased). */
export interface TranscriptionStarted {
  /** Id of the session (`GET /v1/realtime-transcription-sessions/{sessionId}` reads it). */
  sessionId: string;
  /** The audio the client sends: always `pcm_16000` from this library. */
  audioFormat: TranscriptionAudioFormat;
  /** The language asked for (canonical BCP 47), or null when the engine detects it. */
  language: string | null;
  interimResults: boolean;
  /**
   * `vad`: the api ends utterances where the speaker pauses; `manual`: only `flush()` does;
   * `engine`: the engine (Deepgram) finds them itself.
   */
  endpointing: TranscriptionEndpointing;
}

/**
 * One transcript of a segment. Interims (`final: false`) carry the id of the final that
 * will replace them and the segment's whole text so far: keep the last per `segmentId`.
 */
export interface TranscriptionTranscript {
  /** 1, 2, ... counting finals; an interim has the id of its coming final. */
  segmentId: number;
  text: string;
  final: boolean;
  /** Where the segment starts in the audio sent, in milliseconds. */
  startMs: number;
  endMs: number;
  /** The language heard (ISO 639-1), when the engine says. */
  language?: string;
}

/** What a session cost (the api's `cost` object). */
export interface TranscriptionCost {
  credits: number;
  /** `credits` in `currency` (1,000 credits = 1 USD). */
  amount: number;
  currency: string;
  passThrough: boolean;
}

/** The end of a session after `stop()`: what `stop()` resolves with and `finish` carries. */
export interface TranscriptionResult {
  sessionId: string;
  /** The audio the api received, in milliseconds: what the session is charged for. */
  audioMs: number;
  cost: TranscriptionCost;
  auditId: string;
  /** The finals, in order. */
  segments: TranscriptionTranscript[];
  /** The finals' texts joined with spaces (as the api's session read gives it). */
  transcript: string;
}

/**
 * Payload type of every event, by name. Subscribe with `transcription.on(name, listener)`.
 *
 * - `connectionState`: `disconnected`, `connecting`, `connected` or `stopping`.
 * - `started`: the api started the session (before `start()` resolves).
 * - `transcript`: interim and final transcripts, in the api's order.
 * - `finish`: the session ended after `stop()`, with its usage and cost.
 * - `error`: every failure of a session (not the synchronous precondition errors).
 */
export interface TranscriptionEventMap {
  connectionState: TranscriptionConnectionState;
  started: TranscriptionStarted;
  transcript: TranscriptionTranscript;
  finish: TranscriptionResult;
  error: TranscriptionError;
}

/** One of the five event names. */
export type TranscriptionEventName = keyof TranscriptionEventMap;

/** A listener of event `K`. */
export type TranscriptionListener<K extends TranscriptionEventName> = (
  payload: TranscriptionEventMap[K],
) => void;
