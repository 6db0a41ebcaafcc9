import type { MediaErrorKind } from '../errors.ts';
import type { OutputFormat } from '../formats.ts';

/** Settings a worker transcoder is opened with (plain data: it crosses threads). */
export interface WorkerTranscoderSettings {
  readonly opusComplexity?: number;
  readonly ffmpegPath?: string;
  readonly resamplerQuality?: number;
}

/** Main thread → worker. PCM travels as a transferred ArrayBuffer. */
export type TranscodeCommand =
  | {
      readonly op: 'open';
      readonly id: number;
      readonly format: OutputFormat;
      readonly settings: WorkerTranscoderSettings;
    }
  | {
      readonly op: 'write';
      readonly id: number;
      readonly seq: number;
      readonly pcm: ArrayBuffer;
      readonly sampleRateHz: number;
    }
  | { readonly op: 'end'; readonly id: number }
  | { readonly op: 'abort'; readonly id: number };

/** A failure, rebuilt as a `MediaError` on the main thread. */
export interface TranscodeFailure {
  readonly kind: MediaErrorKind;
  readonly message: string;
}

/** Worker → main thread. */
export type TranscodeEvent =
  /** Encoded bytes, in order. */
  | { readonly op: 'data'; readonly id: number; readonly bytes: ArrayBuffer }
  /** The write with this sequence number was taken (the worker can take more). */
  | { readonly op: 'written'; readonly id: number; readonly seq: number }
  /** Every encoded byte was sent; the stream is complete. */
  | { readonly op: 'closed'; readonly id: number }
  | { readonly op: 'failed'; readonly id: number; readonly failure: TranscodeFailure };
