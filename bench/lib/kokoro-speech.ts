import { createResampler } from '../../media/resample.ts';
import { STT_SAMPLE_RATE_HZ } from '../../src/stt/provider.ts';
import {
  defaultKokoroDir,
  InferencePool,
  KOKORO_SAMPLE_RATE_HZ,
  KokoroProvider,
  locateKokoroFiles,
} from '../../src/tts/providers/kokoro/index.ts';
import { NativeProvider } from '../../src/tts/providers/native/index.ts';

/** Kokoro's voices reading texts for the speech-to-text benchmarks, at 16 kHz. */
export interface KokoroSpeech {
  /** The voice (a Kokoro style name)'s speech of `text`, resampled to 16 kHz. */
  speak(style: string, text: string): Promise<Int16Array>;
  close(): Promise<void>;
}

/** Loads the installed Kokoro model; throws when scripts/install-kokoro.sh has not run. */
export function startKokoroSpeech(): KokoroSpeech {
  const files = locateKokoroFiles(defaultKokoroDir());
  const native = new NativeProvider();
  const pool = new InferencePool({
    modelPath: files.modelPath,
    modelSha256: files.modelSha256,
    sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    threadsPerInference: 2,
    concurrentInferences: 1,
    maxWaitMs: 600_000,
  });
  const kokoro = new KokoroProvider({
    pool,
    phonemizer: (lines, language, signal) => native.phonemize(lines, language, signal),
    voicesDir: files.voicesDir,
  });
  const signal = new AbortController().signal;
  return {
    async speak(style, text) {
      const resampler = await createResampler(KOKORO_SAMPLE_RATE_HZ, STT_SAMPLE_RATE_HZ);
      const parts: Buffer[] = [];
      for await (const chunk of kokoro.synthesize({ text, providerVoiceId: style }, signal)) {
        parts.push(resampler.push(chunk.data));
      }
      parts.push(resampler.flush());
      resampler.destroy();
      const pcm = Buffer.concat(parts);
      return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2).slice();
    },
    async close() {
      await pool.close();
      await native.close();
    },
  };
}
