import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  defaultKokoroDir,
  InferencePool,
  KOKORO_SAMPLE_RATE_HZ,
  KokoroProvider,
  type KokoroProviderOptions,
  locateKokoroFiles,
} from '../../../../src/tts/providers/kokoro/index.ts';
import { NativeProvider } from '../../../../src/tts/providers/native/index.ts';

/** The installed Kokoro files; tests fail (not skip) without them: setup.sh test installs them. */
export function installedKokoro() {
  const dir = process.env.KOKORO_DIR ?? defaultKokoroDir();
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    throw new Error(`Kokoro is not installed in ${dir}: run bash scripts/install-kokoro.sh`);
  }
  return locateKokoroFiles(dir);
}

/** A pool on the installed model plus the espeak-ng phonemizer, for one test file. */
export function startKokoro(
  pool: { concurrentInferences?: number; maxWaitMs?: number; threadsPerInference?: number } = {},
  providerOptions: Partial<KokoroProviderOptions> = {},
) {
  const files = installedKokoro();
  const native = new NativeProvider();
  const inference = new InferencePool({
    modelPath: files.modelPath,
    modelSha256: files.modelSha256,
    sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    threadsPerInference: pool.threadsPerInference ?? 2,
    concurrentInferences: pool.concurrentInferences ?? 1,
    maxWaitMs: pool.maxWaitMs ?? 60_000,
  });
  const provider = new KokoroProvider({
    pool: inference,
    phonemizer: (lines, language, signal) => native.phonemize(lines, language, signal),
    voicesDir: files.voicesDir,
    ...providerOptions,
  });
  return {
    provider,
    pool: inference,
    native,
    close: async () => {
      await inference.close();
      await native.close();
    },
  };
}
