import { AwpInvalidResponseError } from '../errors.ts';
import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import { TtsStream, type TtsStreamOptions } from '../tts/stream.ts';
import type {
  SynthesizeRequest,
  SynthesizeResult,
  SynthesizeWithTimestampsJson,
  SynthesizeWithTimestampsRequest,
  SynthesizeWithTimestampsResult,
  TtsStreamToken,
  VoiceRoute,
} from '../types/tts.ts';
import type { OutputFormat } from '../types/voices.ts';

/** Speech synthesis: one-shot over HTTP and streaming over `/v1/tts/stream`. */
export class Tts {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * One-shot synthesis: complete text in, the encoded audio and its audit headers out.
   * Errors the service marks retryable (`ProviderUnavailableError`, `RateLimitedError`,
   * ...) are retried; a network failure is not, since the request may have been charged.
   *
   * @example
   * ```ts
   * const speech = await client.tts.synthesize({
   *   text: 'Your order has shipped.',
   *   voice_id: voice.id,
   *   output_format: 'opus_48000_64',
   * });
   * await writeFile('shipped.ogg', speech.audio);
   * console.log(speech.requestId, speech.auditId, speech.chargeCredits);
   * ```
   */
  async synthesize(body: SynthesizeRequest, options?: RequestOptions): Promise<SynthesizeResult> {
    const call = {
      method: 'POST',
      path: '/v1/tts',
      json: body,
      expect: 'bytes',
      idempotent: false,
    } as const;
    const result = await send<Uint8Array>(this.http, call, options);
    const header = (name: string) => result.headers.get(name) ?? undefined;
    const requestId = result.requestId;
    const auditId = header('x-audit-id');
    const format = header('x-audio-format');
    if (!requestId || !auditId || !format) {
      throw new AwpInvalidResponseError({
        code: 'invalid_response',
        detail: 'the audio answer lacks X-Request-Id, X-Audit-Id or X-Audio-Format',
        status: result.status,
        requestId,
        retryable: false,
      });
    }
    const charge = header('x-charge-credits');
    return {
      audio: result.body,
      format: format as OutputFormat,
      contentType: header('content-type') ?? 'application/octet-stream',
      requestId,
      auditId,
      durationMs: Number(header('x-audio-duration-ms') ?? Number.NaN),
      chargeCredits: charge === undefined ? undefined : Number(charge),
      voiceRoute: voiceRouteOf(header('x-voice-route')),
    };
  }

  /**
   * One-shot synthesis with timings (`POST /v1/tts/with-timestamps`): the audio, decoded
   * from base64, and when each word (`alignment: 'word'`, the default) or character
   * (`'char'`) is spoken. A voice that does not list `word_alignment` / `char_alignment`
   * in its capabilities is refused with `InvalidRequestError`. Retried as
   * {@link synthesize} is.
   *
   * @example
   * ```ts
   * const speech = await client.tts.synthesizeWithTimestamps({
   *   text: 'Your order has shipped.',
   *   voice_id: voice.id,
   *   output_format: 'opus_48000_64',
   *   alignment: 'word',
   * });
   * for (const t of speech.timings) console.log(t.text, t.start_ms, t.end_ms);
   * ```
   */
  async synthesizeWithTimestamps(
    body: SynthesizeWithTimestampsRequest,
    options?: RequestOptions,
  ): Promise<SynthesizeWithTimestampsResult> {
    const call = {
      method: 'POST',
      path: '/v1/tts/with-timestamps',
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    const result = await send<SynthesizeWithTimestampsJson>(this.http, call, options);
    const answer = result.body;
    if (typeof answer?.audio !== 'string' || !Array.isArray(answer.timings)) {
      throw new AwpInvalidResponseError({
        code: 'invalid_response',
        detail: 'the answer lacks audio or timings',
        status: result.status,
        requestId: result.requestId,
        retryable: false,
      });
    }
    const charge = result.headers.get('x-charge-credits') ?? undefined;
    return {
      audio: Buffer.from(answer.audio, 'base64'),
      format: answer.format as OutputFormat,
      requestId: answer.request_id,
      auditId: answer.audit_id,
      durationMs: answer.duration_ms,
      chargeCredits: charge === undefined ? undefined : Number(charge),
      voiceRoute: answer.voice_route,
      alignment: answer.alignment,
      timings: answer.timings,
    };
  }

  /**
   * Streaming synthesis: opens `/v1/tts/stream`, sends `start` and the text, and returns
   * a {@link TtsStream} to iterate with `for await`. See {@link TtsStreamOptions}.
   *
   * @example
   * ```ts
   * async function* sentences() { yield 'Hello.'; yield 'Here is your summary.'; }
   * const stream = client.tts.stream({ voice_id, output_format: 'pcm_24000', text: sentences() });
   * for await (const chunk of stream) player.push(chunk.audio);
   * ```
   */
  stream(options: TtsStreamOptions): TtsStream {
    return new TtsStream(this.http, options);
  }

  /**
   * A TTS stream token for a browser or app; same as `client.tokens.createTtsStreamToken`.
   *
   * @example
   * ```ts
   * const { token, websocket_url } = await client.tts.createStreamToken();
   * ```
   */
  async createStreamToken(options?: RequestOptions): Promise<TtsStreamToken> {
    const call = {
      method: 'POST',
      path: '/v1/tts/stream-tokens',
      json: {},
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<TtsStreamToken>(this.http, call, options)).body;
  }
}

function voiceRouteOf(value: string | undefined): VoiceRoute | undefined {
  return value === 'default' || value === 'fallback' ? value : undefined;
}
