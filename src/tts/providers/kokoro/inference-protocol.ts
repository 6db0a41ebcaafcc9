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
      readonly computeMs: number;
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
