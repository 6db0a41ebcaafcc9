import { randomBytes } from 'node:crypto';
import type { AlignmentGranularity, SynthesisChunk } from '../alignment.ts';
import type { SynthesisRequest, TtsProvider } from '../provider.ts';
import {
  ConcurrencyLimiter,
  type ConcurrencyLimiterStats,
} from '../upstream/concurrency-limiter.ts';
import { type ApiKeySource, requireApiKey } from '../upstream/credentials.ts';
import { UpstreamHttpClient } from '../upstream/http-client.ts';
import type { UpstreamLogger } from '../upstream/logger.ts';
import { chooseSampleRate } from '../upstream/model-info.ts';
import { streamUpstreamPcm } from '../upstream/pcm-stream.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import { withCuePrefix } from '../upstream/voice-tags.ts';
import { parseFishAudioError } from './error-body.ts';
import { type FishAudioModelId, type FishAudioModelInfo, findFishAudioModel } from './models.ts';
import { fishAudioSpeed } from './speed.ts';
import { fishAudioTagPrefix } from './tags.ts';
import { fishTimestampsPcm } from './timestamps-stream.ts';

/** Fish Audio's trade-off between time to first audio and quality. */
export type FishAudioLatency = 'normal' | 'balanced' | 'low';

/** Settings of a {@link FishAudioProvider}; only the key is needed in production. */
export interface FishAudioProviderOptions {
  /** API origin. Default `https://api.fish.audio`. */
  readonly baseUrl?: string;
  /** The account's API key, or a function read on every request. Missing → `auth_missing`. */
  readonly apiKey?: ApiKeySource | undefined;
  /** Model for requests whose route names none. Default `s2.1-pro`. */
  readonly defaultModel?: FishAudioModelId;
  /** `latency` sent with every request. Default `balanced` (earlier first audio). */
  readonly latency?: FishAudioLatency;
  /**
   * Most concurrent upstream requests of this account (FIFO queue beyond). Default 4.
   * Ignored when `limiter` is given.
   */
  readonly maxConcurrentRequests?: number;
  /** A limiter shared with other provider instances on the same account. */
  readonly limiter?: ConcurrencyLimiter;
  readonly timeouts?: Partial<UpstreamTimeouts>;
  /** Operator log; receives a warning when Fish Audio refuses the key. */
  readonly logger?: UpstreamLogger;
  /** Name for logs and the ledger. Default `fishaudio`. */
  readonly name?: string;
}

/** Fish voice model ids (`reference_id`): 32 hex characters today; kept loose but bounded. */
const REFERENCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** True when `id` has the shape of a Fish Audio voice model id (`reference_id`). */
export function isFishAudioReferenceId(id: string): boolean {
  return REFERENCE_ID_PATTERN.test(id);
}

/**
 * Fish Audio synthesis (`POST /v1/tts`, JSON body, `model` header) as a
 * {@link TtsProvider}, yielding the streamed headerless PCM (`format: "pcm"`) as it arrives.
 *
 * - Sample rate: the caller's `preferredSampleRateHz` when Fish offers it (8, 16, 24, 32,
 *   44.1 kHz), else 24,000 Hz (callers at or below it) or 44,100 Hz.
 * - Speed: `prosody.speed`, clamped to Fish's 0.5..2 (see {@link fishAudioSpeed}).
 * - Voice tags: sanitized and put first in the model's cue syntax, `[whispering] text`
 *   (S2 family) or `(whispering) text` (S1).
 * - Alignment (`word` only: Fish times words, not characters): the request goes to
 *   `/v1/tts/stream/with-timestamp`, whose word segments are mapped onto the words of the
 *   text (see {@link fishTimestampsPcm}).
 * - Tracing: every request carries a fresh W3C `traceparent`; its trace id (or Fish's
 *   `x-request-id` when present) is the upstream request id in logs and errors.
 * - Failures are `ProviderError`s (status mapping in ../upstream/status.ts); the API key
 *   never appears in a message or a log line.
 *
 * @example
 * const provider = new FishAudioProvider({ apiKey: () => process.env.FISH_API_KEY });
 * for await (const chunk of provider.synthesize(
 *   { text: 'Hello.', providerVoiceId: '802e3bc2b27e49c2995d23ef70e6ac89', model: 's2-pro' },
 *   signal,
 * )) sink.write(chunk.data);
 */
export class FishAudioProvider implements TtsProvider {
  readonly name: string;
  /** Word segments from `/v1/tts/stream/with-timestamp`. */
  readonly alignment: readonly AlignmentGranularity[] = ['word'];
  readonly #client: UpstreamHttpClient;
  readonly #limiter: ConcurrencyLimiter;
  readonly #apiKey: ApiKeySource | undefined;
  readonly #defaultModel: FishAudioModelId;
  readonly #latency: FishAudioLatency;
  readonly #logger: UpstreamLogger | undefined;

  constructor(options: FishAudioProviderOptions = {}) {
    this.name = options.name ?? 'fishaudio';
    this.#apiKey = options.apiKey;
    this.#defaultModel = options.defaultModel ?? 's2.1-pro';
    this.#latency = options.latency ?? 'balanced';
    this.#logger = options.logger;
    this.#limiter = options.limiter ?? new ConcurrencyLimiter(options.maxConcurrentRequests ?? 4);
    this.#client = new UpstreamHttpClient({
      baseUrl: options.baseUrl ?? 'https://api.fish.audio',
      timeouts: options.timeouts,
      requestIdHeaders: ['x-request-id'],
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
    if (!REFERENCE_ID_PATTERN.test(request.providerVoiceId)) {
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
    const speed = fishAudioSpeed(request.speed);
    const body = {
      text: withCuePrefix(fishAudioTagPrefix(request.voiceTags, model.tagStyle), request.text),
      reference_id: request.providerVoiceId,
      format: 'pcm',
      sample_rate: sampleRateHz,
      latency: this.#latency,
      ...(speed === undefined ? {} : { prosody: { speed } }),
    };
    const traceId = randomBytes(16).toString('hex');
    const aligned = request.alignment === 'word';
    if (request.alignment === 'char') {
      throw new UpstreamProviderError('rejected', `${this.name} times words, not characters`, {
        provider: this.name,
      });
    }

    const release = await this.#limiter.acquire(signal);
    try {
      yield* streamUpstreamPcm(
        {
          provider: this.name,
          client: this.#client,
          request: {
            method: 'POST',
            path: aligned ? '/v1/tts/stream/with-timestamp' : '/v1/tts',
            headers: {
              authorization: `Bearer ${apiKey}`,
              'content-type': 'application/json',
              model: model.model,
              traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
            },
            body: Buffer.from(JSON.stringify(body), 'utf8'),
          },
          sampleRateHz,
          apiKey: apiKey,
          parseError: parseFishAudioError,
          fallbackRequestId: traceId,
          logger: this.#logger,
          ...(aligned
            ? {
                readBody: (body: AsyncIterable<Buffer>) =>
                  fishTimestampsPcm(body, request.text, sampleRateHz, this.name),
              }
            : {}),
        },
        signal,
      );
    } finally {
      release();
    }
  }

  #model(request: SynthesisRequest): FishAudioModelInfo {
    const id = request.model ?? this.#defaultModel;
    const model = findFishAudioModel(id);
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
