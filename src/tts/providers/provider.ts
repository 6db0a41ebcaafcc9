import type { AlignmentGranularity, SynthesisChunk } from './alignment.ts';

/** Features a voice route supports. Mirrors the public `capabilities` values. */
export type VoiceCapability = 'tts' | 'voice_tags' | 'word_alignment' | 'char_alignment';

/** What a provider needs to synthesize one segment of text. */
export interface SynthesisRequest {
  /** Text to speak; already stripped of unsupported tags. */
  readonly text: string;
  /** Provider-side voice reference of the route (never shown to clients). */
  readonly providerVoiceId: string;
  /** Provider-side model of the route, when the provider has several. */
  readonly model?: string;
  /** Speaking-speed multiplier, 1 = normal. */
  readonly speed?: number;
  /** Request-wide expressive cues, only for routes that advertise `voice_tags`. */
  readonly voiceTags?: readonly string[];
  /**
   * Sample rate the caller wants the PCM at; providers that can produce it (a vendor's
   * output format, the native engine's resampler) deliver it and spare the service a
   * resampling stage. Chunks always say their real rate.
   */
  readonly preferredSampleRateHz?: number;
  /**
   * Timings to deliver with the audio (see {@link SynthesisChunk}); only ever one the
   * provider lists in {@link TtsProvider.alignment}. Absent: none.
   */
  readonly alignment?: AlignmentGranularity;
}

/**
 * One speech engine (native model or an upstream vendor). Implementations yield PCM as
 * soon as it is produced and stop work at once when `signal` aborts.
 * Failures are thrown as `ProviderError` (see ./errors.ts).
 */
export interface TtsProvider {
  /** Internal name, for logs and the ledger only; never shown to clients. */
  readonly name: string;
  /**
   * The rate the model itself produces, when fixed (the native and neural engines); it lets
   * a codec pick its input rate (Opus from 24 kHz for audio of that band). Vendors omit it.
   */
  readonly nativeSampleRateHz?: number;
  /** The granularities this provider can time its audio at; absent or empty: none. */
  readonly alignment?: readonly AlignmentGranularity[];
  synthesize(request: SynthesisRequest, signal: AbortSignal): AsyncIterable<SynthesisChunk>;
}
