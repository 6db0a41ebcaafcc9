import type { OutputFormat } from '../../media/formats.ts';
import { getOutputFormatInfo } from '../../media/formats.ts';
import { encodeAudio } from '../../media/transcode.ts';
import { defaultEngineHelperPath, NativeProvider } from '../../src/tts/providers/native/index.ts';
import { nowMs } from './stats.ts';

export interface PipelineTiming {
  /** From the call to the first encoded byte. */
  firstByteMs: number;
  wallMs: number;
  /** Seconds of encoded playback. */
  audioS: number;
}

/** The native provider through the media pipeline, as the service runs it (same engine). */
export class PipelineRunner {
  readonly provider: NativeProvider;
  readonly #opusComplexity: number;

  constructor(opusComplexity: number) {
    // The engine the api uses: long-lived when built (or NATIVE_ENGINE_HELPER), unless
    // NATIVE_ENGINE_PERSISTENT=false.
    const engineHelper =
      process.env.NATIVE_ENGINE_PERSISTENT === 'false'
        ? undefined
        : (process.env.NATIVE_ENGINE_HELPER ?? defaultEngineHelperPath());
    this.provider = new NativeProvider(engineHelper ? { engineHelper } : {});
    this.#opusComplexity = opusComplexity;
  }

  async run(text: string, voice: string, format: OutputFormat): Promise<PipelineTiming> {
    const controller = new AbortController();
    const started = nowMs();
    let firstByteMs = -1;
    const info = getOutputFormatInfo(format);
    const counter = info.createDurationCounter();
    // The rate the service asks of the engine for this format (the engine resamples).
    const preferredSampleRateHz = info.sourceRateHz(this.provider.nativeSampleRateHz);
    const source = this.provider.synthesize(
      { text, providerVoiceId: voice, preferredSampleRateHz },
      controller.signal,
    );
    for await (const bytes of encodeAudio(source, format, controller.signal, {
      opusComplexity: this.#opusComplexity,
    })) {
      if (firstByteMs < 0) firstByteMs = nowMs() - started;
      counter.push(bytes);
    }
    return { firstByteMs, wallMs: nowMs() - started, audioS: counter.durationMs / 1000 };
  }

  close(): Promise<void> {
    return this.provider.close();
  }
}
