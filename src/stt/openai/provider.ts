import OpenAI, { toFile } from 'openai';
import { encodeWav } from '../../../media/wav.ts';
import type { Logger } from '../../observability/logger.ts';
import { BufferedSttStream } from '../buffered-stream.ts';
import { cancelledError, SttError } from '../errors.ts';
import {
  STT_CAPABILITIES,
  STT_SAMPLE_RATE_HZ,
  type SttCapabilities,
  type SttOptions,
  type SttProvider,
  type SttStream,
  type SttTranscript,
  samplesToMs,
} from '../provider.ts';

export interface OpenAiTranscriptionOptions {
  /** `STT_OPENAI_BASE_URL`, ending in `/v1` (OpenAI, or a self-hosted Whisper server). */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** `verbose_json` adds the language and segment log-probabilities (whisper-1 and most servers). */
  responseFormat: 'json' | 'verbose_json';
  /** Deadline of one request. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * An OpenAI-compatible `POST /v1/audio/transcriptions` (multipart, a WAV of the utterance)
 * through the `openai` package. Not streaming: streams transcribe each utterance at
 * `flush()` (finals only). No automatic retry: a voice agent would rather hear about a
 * failure now (with `retryable`) than wait through backoff.
 */
export class OpenAiTranscriptionProvider implements SttProvider {
  readonly name = 'openai' as const;
  readonly capabilities: SttCapabilities = STT_CAPABILITIES.openai;
  readonly #options: OpenAiTranscriptionOptions;
  readonly #client: OpenAI;

  constructor(options: OpenAiTranscriptionOptions) {
    this.#options = options;
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: options.timeoutMs,
    });
  }

  stream(options: SttOptions, signal: AbortSignal): SttStream {
    return new BufferedSttStream(
      (samples, o, s) => this.transcribe(samples, o, s),
      options,
      signal,
    );
  }

  async transcribe(
    samples: Int16Array,
    options: SttOptions,
    signal: AbortSignal,
  ): Promise<SttTranscript> {
    if (signal.aborted) throw cancelledError();
    const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const file = await toFile(
      encodeWav({ data: pcm, sampleRateHz: STT_SAMPLE_RATE_HZ }),
      'utterance.wav',
      {
        type: 'audio/wav',
      },
    );
    const params = {
      file,
      model: this.#options.model,
      ...(options.language !== undefined ? { language: options.language } : {}),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    };
    const endMs = samplesToMs(samples.length);
    try {
      if (this.#options.responseFormat === 'verbose_json') {
        const result = await this.#client.audio.transcriptions.create(
          { ...params, response_format: 'verbose_json' },
          { signal },
        );
        return {
          text: result.text.trim(),
          language: normalizeLanguage(result.language) ?? options.language,
          startMs: 0,
          endMs,
          confidence: segmentConfidence(result.segments),
        };
      }
      const result = await this.#client.audio.transcriptions.create(
        { ...params, response_format: 'json' },
        { signal },
      );
      return {
        text: result.text.trim(),
        language: options.language,
        startMs: 0,
        endMs,
        confidence: undefined,
      };
    } catch (error) {
      throw classify(error, signal);
    }
  }

  async close(): Promise<void> {}
}

/** whisper-1 names languages in English ("english"); the seam uses ISO 639-1 where known. */
function normalizeLanguage(language: string | undefined): string | undefined {
  if (language === undefined || language === '') return undefined;
  const names: Record<string, string> = {
    english: 'en',
    french: 'fr',
    german: 'de',
    spanish: 'es',
    italian: 'it',
    portuguese: 'pt',
    japanese: 'ja',
    chinese: 'zh',
    hindi: 'hi',
    dutch: 'nl',
  };
  return names[language.toLowerCase()] ?? language.toLowerCase();
}

/** exp of the duration-weighted mean segment log-probability, as the embedded engine does. */
function segmentConfidence(
  segments: ReadonlyArray<{ start: number; end: number; avg_logprob: number }> | undefined,
): number | undefined {
  if (segments === undefined || segments.length === 0) return undefined;
  let sum = 0;
  let weight = 0;
  for (const segment of segments) {
    const span = Math.max(segment.end - segment.start, 0.01);
    sum += segment.avg_logprob * span;
    weight += span;
  }
  return Math.exp(sum / weight);
}

function classify(error: unknown, signal: AbortSignal): SttError {
  if (signal.aborted || error instanceof OpenAI.APIUserAbortError) return cancelledError();
  if (error instanceof OpenAI.APIConnectionError) {
    return new SttError('unavailable', `transcription request failed: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    const message = `transcription endpoint answered ${status}`;
    if (status === 401 || status === 403)
      return new SttError('auth_rejected', message, { cause: error });
    if (status === 429) return new SttError('overloaded', message, { cause: error });
    if (status === 408 || status >= 500)
      return new SttError('unavailable', message, { cause: error });
    return new SttError('rejected', message, { cause: error });
  }
  return new SttError('unavailable', 'transcription request failed', { cause: error });
}
