/**
 * The speech-to-text seam. Every engine (embedded Whisper, Deepgram streaming,
 * OpenAI-compatible `/v1/audio/transcriptions`) implements `SttProvider`; the agent worker's
 * LiveKit `stt.STT` adapter wraps this interface and uses nothing else.
 *
 * Audio is always 16 kHz mono signed 16-bit PCM (`Int16Array` samples, as LiveKit's
 * `AudioFrame.data`). The agent's VAD decides where an utterance ends and says so with
 * `flush()`; engines without streaming recognition transcribe each utterance then.
 *
 * @example
 * ```ts
 * const stream = provider.stream({ language: 'en' }, signal);
 * (async () => {
 *   for await (const frame of microphone) stream.pushAudio(frame);
 *   stream.end();
 * })();
 * vad.on('end_of_speech', () => stream.flush());
 * for await (const event of stream) {
 *   if (event.type === 'final') console.log(event.text);
 * }
 * ```
 */

/** Sample rate of all audio given to an `SttProvider`. */
export const STT_SAMPLE_RATE_HZ = 16_000;

/** `STT_PROVIDER` values. */
export const STT_PROVIDER_NAMES = ['embedded', 'deepgram', 'openai'] as const;
export type SttProviderName = (typeof STT_PROVIDER_NAMES)[number];

/** What an engine can do; the LiveKit adapter reports the same to the agent framework. */
export interface SttCapabilities {
  /** Recognition runs while audio arrives (not only at `flush()`). */
  readonly streaming: boolean;
  /** `interim` events are produced. */
  readonly interimResults: boolean;
}

/** What each engine can do (its `SttProvider.capabilities`; `GET /v1/models` shows it). */
export const STT_CAPABILITIES: Readonly<Record<SttProviderName, SttCapabilities>> = {
  embedded: { streaming: false, interimResults: false },
  deepgram: { streaming: true, interimResults: true },
  openai: { streaming: false, interimResults: false },
};

/** Per-call recognition options. */
export interface SttOptions {
  /** Language of the speech (ISO 639-1, `en`); omitted: the engine detects or uses its default. */
  language?: string;
  /** Words or a sentence that bias recognition (names, jargon), where the engine supports it. */
  prompt?: string;
  /**
   * Streams only: an engine that starts transcribing at the speaker's pause (early start)
   * also yields that transcript as a `preflight` event as soon as it is ready, while the
   * VAD still waits for the end of speech. The agent worker asks its model with it.
   */
  preflight?: boolean;
}

/** A recognized utterance (or the part of one an engine finalized). */
export interface SttTranscript {
  text: string;
  /** Language of the text, as the engine reported it or as requested. */
  language: string | undefined;
  /** Offsets in the audio of the stream (from its first sample), in milliseconds. */
  startMs: number;
  endMs: number;
  /** 0..1 where the engine reports one. */
  confidence: number | undefined;
}

/** One event of a recognition stream, in audio order. */
export type SttEvent =
  /** Text so far of the utterance being spoken; later events replace it. */
  | { type: 'interim'; text: string; language: string | undefined; startMs: number; endMs: number }
  /**
   * Final text of a stretch of speech. Streaming engines may finalize an utterance in
   * several pieces; concatenate them. `endpoint` is true when the engine's own endpointing
   * judged the speaker done (Deepgram `speech_final`); the agent's VAD still decides turns.
   */
  | ({ type: 'final'; endpoint: boolean } & SttTranscript)
  /**
   * With the `preflight` option: the utterance so far, transcribed at a pause of the speaker
   * (`silenceStarted()`) before the end of speech. The `final` that follows replaces it:
   * the same text when no speech came in between.
   */
  | ({ type: 'preflight' } & SttTranscript)
  /** Every final for the audio before one `flush()` call has been delivered (one per call). */
  | { type: 'flushed' };

/**
 * One recognition stream. Feed it audio, call `flush()` at each end of utterance and
 * `end()` after the last; iterate it for events. The iteration ends after `end()` once
 * every pending final is out, and throws an `SttError` on failure (kind `cancelled` when
 * the signal aborts). Only one iterator per stream.
 */
export interface SttStream extends AsyncIterable<SttEvent> {
  /** Appends audio (16 kHz mono samples). Ignored after `end()`. */
  pushAudio(samples: Int16Array): void;
  /** The utterance ended (the agent's VAD said so): finalize what was heard. */
  flush(): void;
  /** No more audio: finalize what is pending, then end the iteration. */
  end(): void;
  /**
   * The speaker paused (the VAD has heard a short silence, shorter than the one that ends
   * an utterance). An engine that transcribes whole utterances may start on the audio so
   * far, and answer the `flush()` that follows with it when no speech came in between.
   */
  silenceStarted?(): void;
  /** Speech came back after `silenceStarted()`. */
  speechResumed?(): void;
}

/** One speech-to-text engine. Failures are `SttError`s. */
export interface SttProvider {
  readonly name: SttProviderName;
  readonly capabilities: SttCapabilities;
  /** Opens a recognition stream; aborting `signal` ends it at once with `cancelled`. */
  stream(options: SttOptions, signal: AbortSignal): SttStream;
  /** Recognizes one complete utterance. Offsets are relative to its first sample. */
  transcribe(samples: Int16Array, options: SttOptions, signal: AbortSignal): Promise<SttTranscript>;
  /**
   * Starts what the first utterance would otherwise wait for (the embedded model's
   * process), where the provider has such a thing; resolves when it is ready.
   */
  warmUp?(): Promise<void>;
  /** Stops background work (sidecar process, sockets). Calls after it fail. */
  close(): Promise<void>;
}

/** Duration in milliseconds of `sampleCount` samples at 16 kHz. */
export function samplesToMs(sampleCount: number): number {
  return (sampleCount * 1000) / STT_SAMPLE_RATE_HZ;
}
