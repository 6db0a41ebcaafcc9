import { type AudioBuffer, asLanguageCode, mergeFrames, stt } from '@livekit/agents';
import { AudioResampler } from '@livekit/rtc-node';
import { STT_SAMPLE_RATE_HZ, type SttProvider } from '../stt/provider.ts';

export interface AwpSttOptions {
  provider: SttProvider;
  /** Language of the user's speech (ISO 639-1); omitted: the engine's default. */
  language?: string;
  /** Milliseconds of user speech sent to the engine, per utterance. */
  onAudio?: (durationMs: number) => void;
}

/**
 * The LiveKit `stt.STT` over our `SttProvider` seam. It recognizes whole utterances: the
 * framework wraps it in its VAD stream adapter, which cuts the user's audio at Silero's
 * end of speech and calls `recognize` once per utterance.
 */
export class AwpStt extends stt.STT {
  label: string;

  constructor(readonly options: AwpSttOptions) {
    super({ streaming: false, interimResults: false });
    this.label = `awp.stt.${options.provider.name}`;
  }

  override get provider(): string {
    return this.options.provider.name;
  }

  protected async _recognize(
    buffer: AudioBuffer,
    abortSignal?: AbortSignal,
  ): Promise<stt.SpeechEvent> {
    const merged = mergeFrames(buffer);
    let samples = merged.data;
    if (merged.channels !== 1 || merged.sampleRate !== STT_SAMPLE_RATE_HZ) {
      const resampler = new AudioResampler(merged.sampleRate, STT_SAMPLE_RATE_HZ, merged.channels);
      const frames = [...resampler.push(merged), ...resampler.flush()];
      const mono = mergeFrames(frames);
      samples = downmix(mono.data, mono.channels);
    }
    this.options.onAudio?.(Math.round((samples.length * 1000) / STT_SAMPLE_RATE_HZ));
    const signal = abortSignal ?? new AbortController().signal;
    const result = await this.options.provider.transcribe(
      samples,
      this.options.language ? { language: this.options.language } : {},
      signal,
    );
    return {
      type: stt.SpeechEventType.FINAL_TRANSCRIPT,
      alternatives: [
        {
          language: asLanguageCode(result.language ?? this.options.language ?? 'en'),
          text: result.text.trim(),
          startTime: result.startMs / 1000,
          endTime: result.endMs / 1000,
          confidence: result.confidence ?? 1,
        },
      ],
    };
  }

  stream(): stt.SpeechStream {
    throw new Error('AwpStt recognizes utterances; the framework wraps it in a VAD StreamAdapter');
  }
}

function downmix(data: Int16Array, channels: number): Int16Array {
  if (channels === 1) return data;
  const out = new Int16Array(Math.floor(data.length / channels));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += data[i * channels + c] ?? 0;
    out[i] = Math.round(sum / channels);
  }
  return out;
}
