/** Messages between the api thread and the voice-activity worker thread. */

/** Samples per Silero window at 16 kHz (32 ms). */
export const VAD_WINDOW_SAMPLES = 512;

export interface VadWorkerData {
  /** file: URL of the worker entry, for the bootstrap that loads it from source. */
  entry: string;
  /** The Silero model file. */
  modelPath: string;
}

/** To the worker: a stream's audio (16 kHz samples), its opening and its end. */
export type VadRequest =
  | { type: 'open'; stream: number }
  | { type: 'audio'; stream: number; samples: Int16Array }
  | { type: 'close'; stream: number };

/** From the worker: readiness, a failed start, and the probabilities of each full window. */
export type VadReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  /** One per `audio` request, in order: the speech probability of each window it completed. */
  | { type: 'probabilities'; stream: number; probabilities: Float32Array };
