import { availableParallelism } from 'node:os';
import { InferencePool } from './inference-pool.ts';
import { KokoroFilesMissingError, locateKokoroFiles } from './model-files.ts';
import type { Phonemizer } from './phonemes.ts';
import { KokoroProvider } from './provider.ts';
import { KOKORO_SAMPLE_RATE_HZ, KOKORO_VOICES, type KokoroVoice } from './voices.ts';

/** Settings of {@link createKokoroEngine}. */
export interface KokoroEngineOptions {
  /** Folder the install script filled (`defaultKokoroDir()`). */
  readonly dir: string;
  readonly phonemizer: Phonemizer;
  /** onnxruntime threads per inference. Default: the CPU count. */
  readonly threadsPerInference?: number;
  /** Inferences at once (worker threads, one model copy each). Default 1. */
  readonly concurrentInferences?: number;
  /** Longest a new request may wait for the model before it is refused. Default 2000 ms. */
  readonly maxWaitMs?: number;
  /** Where to report a missing or corrupt installation. */
  readonly warn: (message: string) => void;
}

/** A running neural engine: its provider, the voices it serves and its pool. */
export interface KokoroEngine {
  readonly provider: KokoroProvider;
  readonly pool: InferencePool;
  readonly voices: readonly KokoroVoice[];
  close(): Promise<void>;
}

/**
 * Starts the neural engine when its files are installed, else returns null after one
 * warning naming the install step (the api starts without neural voices). A corrupt model
 * is found by the workers while loading: the voices stay listed and every request fails
 * with a retryable `provider_error`, and `warn` names the file and the fix.
 */
export function createKokoroEngine(options: KokoroEngineOptions): KokoroEngine | null {
  let files: ReturnType<typeof locateKokoroFiles>;
  try {
    files = locateKokoroFiles(options.dir);
  } catch (error) {
    if (error instanceof KokoroFilesMissingError) {
      options.warn(error.message);
      return null;
    }
    throw error;
  }
  const pool = new InferencePool({
    modelPath: files.modelPath,
    modelSha256: files.modelSha256,
    sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    threadsPerInference: options.threadsPerInference ?? availableParallelism(),
    concurrentInferences: options.concurrentInferences ?? 1,
    maxWaitMs: options.maxWaitMs ?? 2000,
    onLoadFailure: options.warn,
  });
  pool.ready().catch(() => undefined); // reported through onLoadFailure
  const voices = KOKORO_VOICES.filter((voice) => voice.providerVoiceId in files.voiceSha256);
  const provider = new KokoroProvider({
    pool,
    phonemizer: options.phonemizer,
    voicesDir: files.voicesDir,
  });
  return { provider, pool, voices, close: () => pool.close() };
}
