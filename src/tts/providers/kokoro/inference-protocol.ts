import type { SeamEnd } from './seams.ts';

/** Samples of one model frame: the unit of the durations the model predicts (25 ms). */
export const KOKORO_FRAME_SAMPLES = 600;

/** Messages between the {@link InferencePool} and its worker threads. */

/** Sent once in `workerData`. */
export interface InferenceWorkerData {
  readonly entry: string;
  readonly modelPath: string;
  readonly modelSha256: string;
  readonly threads: number;
  readonly sampleRateHz: number;
}

/** One model run: tokens framed by pads, the 256-float style row, the speed input. */
export interface InferenceJobMessage {
  readonly type: 'run';
  readonly id: number;
  readonly tokens: readonly number[];
  readonly style: Float32Array;
  readonly speed: number;
  /** How the chunk's audio ends (seams.ts). */
  readonly seam: SeamEnd;
}

export type InferenceWorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | {
      readonly type: 'done';
      readonly id: number;
      /** Shaped 16-bit PCM (see seams.ts), transferred. */
      readonly pcm: ArrayBuffer;
      /** Samples the model produced before trimming. */
      readonly rawSamples: number;
      /** Model sample where `pcm` starts (the silence trimmed before it). */
      readonly trimmedSamples: number;
      /**
       * Frames of {@link KOKORO_FRAME_SAMPLES} the model gave each input token (pads
       * included), in order: token i spans frames sum(durations[0..i)) up to the next.
       */
      readonly durations: Uint16Array;
      readonly computeMs: number;
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
