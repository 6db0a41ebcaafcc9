import type { AlignmentGranularity, SynthesisChunk } from '../alignment.ts';
import type { SynthesisRequest, TtsProvider } from '../provider.ts';
import {
  ConcurrencyLimiter,
  type ConcurrencyLimiterStats,
} from '../upstream/concurrency-limiter.ts';
import { type ApiKeySource, requireApiKey } from '../upstream/credentials.ts';
import { UpstreamHttpClient, type UpstreamRequest } from '../upstream/http-client.ts';
import type { UpstreamLogger } from '../upstream/logger.ts';
import { chooseSampleRate } from '../upstream/model-info.ts';
import { streamUpstreamPcm } from '../upstream/pcm-stream.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import { codePointCount, splitText } from '../upstream/text-split.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import { withCuePrefix } from '../upstream/voice-tags.ts';
import { parseElevenLabsError } from './error-body.ts';
import { type ElevenLabsModelId, type ElevenLabsModelInfo, findElevenLabsModel } from './models.ts';
import { elevenLabsSpeed } from './speed.ts';
import { elevenLabsTagPrefix } from './tags.ts';
import { timestampsPcm } from './timestamps-stream.ts';

/** Settings of an {@link ElevenLabsProvider}; only the key is needed in production. */
export interface ElevenLabsProviderOptions {
  /** API origin. Default `https://api.elevenlabs.io`. */
  readonly baseUrl?: string;
  /** The account's API key, or a function read on every request. Missing → `auth_missing`. */
  readonly apiKey?: ApiKeySource | undefined;
  /** Model for requests whose route names none. Default `eleven_multilingual_v2`. */
  readonly defaultModel?: ElevenLabsModelId;
  /**
   * Most concurrent upstream requests of this account (FIFO queue beyond). Default 4.
   * Ignored when `limiter` is given.
   */
  readonly maxConcurrentRequests?: number;
  /** A limiter shared with other provider instances on the same account. */
  readonly limiter?: ConcurrencyLimiter;
  readonly timeouts?: Partial<UpstreamTimeouts>;
  /** Operator log; receives a warning when ElevenLabs refuses the key. */
  readonly logger?: UpstreamLogger;
  /** Name for logs and the ledger. Default `elevenlabs`. */
  readonly name?: string;
}

/** Header that carries the API key. */
const API_KEY_HEADER = 'xi-api-key';
/** Response header with ElevenLabs' id of the request (logged for support). */
const REQUEST_ID_HEADER = 'request-id';
/** ElevenLabs voice ids: short alphanumeric strings. */
const VOICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** True when `id` has the shape of an ElevenLabs voice id. */
export function isElevenLabsVoiceId(id: string): boolean {
  return VOICE_ID_PATTERN.test(id);
}

/**
 * ElevenLabs streaming synthesis (`POST /v1/text-to-speech/{voice_id}/stream`) as a
 * {@link TtsProvider}, yielding raw PCM as it arrives.
 *
 * - Sample rate: `output_format=pcm_<rate>` at the caller's `preferredSampleRateHz` when
 *   ElevenLabs offers it, else 24,000 Hz (callers at or below it) or 44,100 Hz.
 * - Speed: `voice_settings.speed`, clamped to ElevenLabs' 0.7..1.2 (see {@link elevenLabsSpeed}).
 * - Voice tags (eleven_v3 only): sanitized and put first as inline cues,
 *   `[whispering] [curious] text`; on eleven_multilingual_v2 they are not sent.
 * - Text over the model's per-request limit is split on sentence boundaries into several
 *   upstream requests, sent one after another, yielding one continuous PCM stream; the
 *   tag prefix is repeated on every part.
 * - Failures are `ProviderError`s (status mapping in ../upstream/status.ts); the API key never
 *   appears in a message or a log line.
 *
 * @example
 * const provider = new ElevenLabsProvider({ apiKey: () => process.env.ELEVENLABS_API_KEY });
 * for await (const chunk of provider.synthesize(
 *   { text: 'Hello.', providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb', model: 'eleven_v3', voiceTags: ['warm'] },
 *   signal,
 * )) sink.write(chunk.data);
 */
export class ElevenLabsProvider implements TtsProvider {
  readonly name: string;
  /** Character alignment from `/stream/with-timestamps`, and words made of it. */
  readonly alignment: readonly AlignmentGranularity[] = ['word', 'char'];
  readonly #client: UpstreamHttpClient;
  readonly #limiter: ConcurrencyLimiter;
  readonly #apiKey: ApiKeySource | undefined;
  readonly #defaultModel: ElevenLabsModelId;
  readonly #logger: UpstreamLogger | undefined;

  constructor(options: ElevenLabsProviderOptions = {}) {
    this.name = options.name ?? 'elevenlabs';
    this.#apiKey = options.apiKey;
    this.#defaultModel = options.defaultModel ?? 'eleven_multilingual_v2';
    this.#logger = options.logger;
    this.#limiter = options.limiter ?? new ConcurrencyLimiter(options.maxConcurrentRequests ?? 4);
    this.#client = new UpstreamHttpClient({
      baseUrl: options.baseUrl ?? 'https://api.elevenlabs.io',
      timeouts: options.timeouts,
      requestIdHeaders: [REQUEST_ID_HEADER],
    });
  }

  /** Occupancy of the account's concurrency limiter. */
  get stats(): ConcurrencyLimiterStats {
    return this.#limiter.stats;
  }

  /** Closes kept-alive connections. Requests in flight fail. */
  close(): void {
    this.#client.close();
  }

  async *synthesize(
    request: SynthesisRequest,
    signal: AbortSignal,
  ): AsyncGenerator<SynthesisChunk> {
    signal.throwIfAborted();
    const apiKey = requireApiKey(this.#apiKey, this.name);
    const model = this.#model(request);
    if (!VOICE_ID_PATTERN.test(request.providerVoiceId)) {
      throw new UpstreamProviderError(
        'rejected',
        `invalid ${this.name} voice id ${JSON.stringify(request.providerVoiceId.slice(0, 80))}`,
        { provider: this.name },
      );
    }
    const sampleRateHz = chooseSampleRate(
      model.nativeSampleRates,
      request.preferredSampleRateHz,
      24_000,
      44_100,
    );
    const prefix = model.inlineTags ? elevenLabsTagPrefix(request.voiceTags) : '';
    const parts = splitText(request.text, model.maxCharsPerRequest - codePointCount(prefix));
    const speed = elevenLabsSpeed(request.speed);

    const release = await this.#limiter.acquire(signal);
    const { alignment } = request;
    // With alignment the parts' timings follow each other as their audio does.
    let textAt = 0;
    let offsetS = 0;
    try {
      for (const part of parts) {
        const textStart = Math.max(0, request.text.indexOf(part, textAt));
        textAt = textStart + part.length;
        const sent = { textStart, part, prefixChars: codePointCount(prefix), offsetS };
        const body = {
          text: withCuePrefix(prefix, part),
          model_id: model.model,
          ...(speed === undefined ? {} : { voice_settings: { speed } }),
        };
        const upstream: UpstreamRequest = {
          method: 'POST',
          path: `/v1/text-to-speech/${encodeURIComponent(request.providerVoiceId)}/stream${alignment ? '/with-timestamps' : ''}?output_format=pcm_${sampleRateHz}`,
          headers: {
            [API_KEY_HEADER]: apiKey,
            'content-type': 'application/json',
          },
          body: Buffer.from(JSON.stringify(body), 'utf8'),
        };
        const audio = streamUpstreamPcm(
          {
            provider: this.name,
            client: this.#client,
            request: upstream,
            sampleRateHz,
            apiKey,
            parseError: parseElevenLabsError,
            logger: this.#logger,
            ...(alignment
              ? {
                  readBody: (body: AsyncIterable<Buffer>) =>
                    timestampsPcm(body, sent, request.text, alignment, sampleRateHz, this.name),
                }
              : {}),
          },
          signal,
        );
        for await (const chunk of audio) {
          offsetS += chunk.data.byteLength / 2 / sampleRateHz;
          yield chunk;
        }
      }
    } finally {
      release();
    }
  }

  #model(request: SynthesisRequest): ElevenLabsModelInfo {
    const id = request.model ?? this.#defaultModel;
    const model = findElevenLabsModel(id);
    if (model === undefined) {
      throw new UpstreamProviderError(
        'rejected',
        `unknown ${this.name} model ${JSON.stringify(id.slice(0, 80))}`,
        { provider: this.name },
      );
    }
    return model;
  }
}
