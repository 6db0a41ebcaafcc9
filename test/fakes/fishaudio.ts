import type { IncomingMessage } from 'node:http';
import { unpack } from 'msgpackr';
import { wavHeader } from '../../media/wav.ts';
import { FishAudioModelLibrary } from './fishaudio-models.ts';
import { fishTimestampEvents } from './fishaudio-timestamps.ts';
import {
  type FakeVendorOptions,
  FakeVendorServer,
  type RecordedRequest,
  type VendorAnswer,
} from './vendor-server.ts';

export type { FakeFailure, RecordedRequest, RequestOutcome } from './vendor-server.ts';

/** Models the `model` header may name; anything else falls back to s2.1-pro, as Fish does. */
const MODELS = new Set(['s1', 's2-pro', 's2.1-pro', 's2.1-pro-free', 'drama-3-preview']);
/** Synthesis paths: plain audio, and audio with word timestamps as Server-Sent Events. */
const TTS_PATH = '/v1/tts';
const TIMESTAMPS_PATH = '/v1/tts/stream/with-timestamp';
/** Rates Fish offers for `wav` and `pcm`. */
const PCM_RATES = new Set([8000, 16000, 24000, 32000, 44100]);

/**
 * A fake Fish Audio API on 127.0.0.1 speaking the documented wire protocol of
 * `POST /v1/tts`:
 *
 * - `Authorization: Bearer <key>`; a missing or wrong key gets 401
 *   `{ "status": 401, "message": "Invalid Token" }`.
 * - Body as `application/json` or `application/msgpack`: `{ text, reference_id, format,
 *   sample_rate, latency, prosody: { speed } }`. A sample rate Fish does not offer for
 *   PCM, `prosody.speed` outside 0.5..2 or an unknown `latency` gets a 422 validation list.
 * - The `model` header is recorded; an unknown or missing value is served as s2.1-pro.
 * - 200 answers stream `format: "pcm"` as headerless s16le mono PCM (`wav`: the same with
 *   a RIFF header) at `sample_rate` (default 44,100 Hz), chunked, espeak-ng speech.
 * - Only `pcm` and `wav` output are implemented; `mp3` and `opus` get 400.
 * - `POST /v1/tts/stream/with-timestamp` takes the same body and answers
 *   `text/event-stream`: `data: {audio_base64, content, alignment: {segments: [{text,
 *   start, end}], audio_duration} | null, chunk_seq, chunk_audio_offset_sec}` events, one
 *   text chunk per sentence, cumulative snapshots revised as audio goes out (see
 *   {@link fishTimestampEvents}); `pcm` output only.
 *
 * @example
 * const fake = await FakeFishAudio.start();
 * fake.failNext({ kind: 'reset_after_bytes', bytes: 4000 });
 * const provider = new FishAudioProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
 */
export class FakeFishAudio extends FakeVendorServer {
  protected readonly credentialHeader = 'authorization';
  /** Voice models of the account, see {@link FishAudioModelLibrary}. */
  readonly library = new FishAudioModelLibrary();
  /** When true, synthesis with a `reference_id` the library does not hold answers 404. */
  readonly knownVoicesOnly: boolean;

  protected constructor(options: FakeVendorOptions & { knownVoicesOnly?: boolean } = {}) {
    super(options);
    this.knownVoicesOnly = options.knownVoicesOnly ?? false;
  }

  /** Starts a fake on an ephemeral port. */
  static async start(
    options: FakeVendorOptions & { knownVoicesOnly?: boolean } = {},
  ): Promise<FakeFishAudio> {
    const fake = new FakeFishAudio(options);
    await fake.listen();
    return fake;
  }

  protected override accept(request: RecordedRequest): void {
    if (this.library.handles(request.path)) this.library.accept(request);
  }

  /** The model a recorded request was served with (the `model` header, or the fallback). */
  static servedModel(request: RecordedRequest): string {
    const model = request.headers.model;
    return model !== undefined && MODELS.has(model) ? model : 's2.1-pro';
  }

  protected checkAuth(req: IncomingMessage): { present: boolean; valid: boolean } {
    const header = req.headers.authorization;
    return {
      present: typeof header === 'string' && header !== '',
      valid: header === `Bearer ${this.apiKey}`,
    };
  }

  protected parseBody(req: IncomingMessage, raw: Buffer): unknown {
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('application/msgpack')) return unpack(raw);
    return JSON.parse(raw.toString('utf8'));
  }

  protected errorBody(status: number): unknown {
    return { status, message: ERROR_TEXT[status] ?? `HTTP ${status}` };
  }

  protected answer(request: RecordedRequest): VendorAnswer {
    if (this.library.handles(request.path)) return this.library.answer(request);
    const timestamps = request.path === TIMESTAMPS_PATH;
    if (request.method !== 'POST' || (request.path !== TTS_PATH && !timestamps)) {
      return error(404, 'Not Found');
    }
    if (!request.auth.valid) return error(401, 'Invalid Token');
    const type = request.headers['content-type'] ?? '';
    if (!type.startsWith('application/json') && !type.startsWith('application/msgpack')) {
      return { kind: 'error', status: 400, body: 'Unsupported content type' };
    }
    const body = request.body as {
      text?: unknown;
      reference_id?: unknown;
      format?: unknown;
      sample_rate?: unknown;
      latency?: unknown;
      prosody?: { speed?: unknown } | null;
    };
    if (typeof body !== 'object' || body === null || typeof body.text !== 'string') {
      return validation(['body', 'text'], 'missing', 'Field required');
    }
    if (
      this.knownVoicesOnly &&
      !(typeof body.reference_id === 'string' && this.library.models.has(body.reference_id))
    ) {
      return error(404, 'Model not found');
    }
    const format = body.format ?? 'mp3';
    if (format !== 'pcm' && (format !== 'wav' || timestamps)) {
      return error(400, `the fake only serves pcm and wav output, not ${String(format)}`);
    }
    const sampleRateHz = body.sample_rate ?? 44100;
    if (typeof sampleRateHz !== 'number' || !PCM_RATES.has(sampleRateHz)) {
      return validation(['body', 'sample_rate'], 'value_error', 'Unsupported sample rate');
    }
    const speed = body.prosody?.speed;
    if (speed !== undefined && (typeof speed !== 'number' || speed < 0.5 || speed > 2)) {
      return validation(['body', 'prosody', 'speed'], 'value_error', 'speed must be 0.5..2');
    }
    const latency = body.latency ?? 'normal';
    if (latency !== 'low' && latency !== 'normal' && latency !== 'balanced') {
      return validation(['body', 'latency'], 'enum', 'Input should be low, normal or balanced');
    }
    if (timestamps) {
      const text = body.text;
      return {
        kind: 'audio',
        text,
        sampleRateHz,
        ...(typeof speed === 'number' ? { speed } : {}),
        headers: { 'content-type': 'text/event-stream' },
        frame: (piece, offset, audio) =>
          fishTimestampEvents(text, piece, offset / 2, audio.byteLength / 2, sampleRateHz),
      };
    }
    return {
      kind: 'audio',
      text: body.text,
      sampleRateHz,
      ...(typeof speed === 'number' ? { speed } : {}),
      // A streaming writer cannot know the length: the header says "unknown" as espeak does.
      ...(format === 'wav' ? { prefix: wavHeader(sampleRateHz, 0x7fffffff - 36) } : {}),
      headers: { 'content-type': format === 'wav' ? 'audio/wav' : 'audio/pcm' },
    };
  }
}

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Invalid Token',
  402: 'Insufficient Balance',
  403: 'Permission Denied',
  404: 'Not Found',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function error(status: number, message: string): VendorAnswer {
  return { kind: 'error', status, body: { status, message } };
}

function validation(loc: string[], type: string, msg: string): VendorAnswer {
  return { kind: 'error', status: 422, body: [{ loc, type, msg, ctx: {}, in: 'body' }] };
}
