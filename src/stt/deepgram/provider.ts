import type { Logger } from '../../observability/logger.ts';
import type {
  SttCapabilities,
  SttOptions,
  SttProvider,
  SttStream,
  SttTranscript,
} from '../provider.ts';
import { STT_CAPABILITIES, samplesToMs } from '../provider.ts';
import { DeepgramSttStream } from './stream.ts';

export interface DeepgramSttOptions {
  apiKey: string;
  /** `DEEPGRAM_BASE_URL`: http(s) base of the API (the live socket uses ws(s) on it). */
  baseUrl: string;
  model: string;
  keepAliveMs: number;
  /** Longest wait for the answer to `Finalize` (default 3 s). */
  finalizeTimeoutMs?: number;
  /** Longest wait for the close after `CloseStream` (default 5 s). */
  closeTimeoutMs?: number;
  logger: Logger;
}

/** Audio sent per WebSocket message by `transcribe` (Deepgram suggests 20-250 ms). */
const TRANSCRIBE_CHUNK_SAMPLES = 1600;

/**
 * Deepgram live transcription through the official SDK (`listen.v1` WebSocket): interim
 * results while the user speaks, finals as Deepgram settles them. `transcribe` uses the
 * same live protocol for one utterance, so one wire protocol serves both calls.
 */
export class DeepgramSttProvider implements SttProvider {
  readonly name = 'deepgram' as const;
  readonly capabilities: SttCapabilities = STT_CAPABILITIES.deepgram;
  readonly #options: DeepgramSttOptions;

  constructor(options: DeepgramSttOptions) {
    this.#options = options;
  }

  stream(options: SttOptions, signal: AbortSignal): SttStream {
    const o = this.#options;
    return new DeepgramSttStream(
      {
        apiKey: o.apiKey,
        baseUrl: o.baseUrl,
        model: o.model,
        keepAliveMs: o.keepAliveMs,
        finalizeTimeoutMs: o.finalizeTimeoutMs ?? 3000,
        closeTimeoutMs: o.closeTimeoutMs ?? 5000,
        logger: o.logger,
      },
      options,
      signal,
    );
  }

  async transcribe(
    samples: Int16Array,
    options: SttOptions,
    signal: AbortSignal,
  ): Promise<SttTranscript> {
    const stream = this.stream(options, signal);
    for (let offset = 0; offset < samples.length; offset += TRANSCRIBE_CHUNK_SAMPLES) {
      stream.pushAudio(samples.subarray(offset, offset + TRANSCRIBE_CHUNK_SAMPLES));
    }
    stream.end();
    const texts: string[] = [];
    let language: string | undefined;
    let confidenceSum = 0;
    let confidenceCount = 0;
    for await (const event of stream) {
      if (event.type !== 'final') continue;
      texts.push(event.text);
      language ??= event.language;
      if (event.confidence !== undefined) {
        confidenceSum += event.confidence;
        confidenceCount += 1;
      }
    }
    return {
      text: texts.join(' '),
      language: language ?? options.language,
      startMs: 0,
      endMs: samplesToMs(samples.length),
      confidence: confidenceCount > 0 ? confidenceSum / confidenceCount : undefined,
    };
  }

  async close(): Promise<void> {}
}
