import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ElevenLabsVoiceLibrary } from './elevenlabs-voices.ts';
import {
  type FakeVendorOptions,
  FakeVendorServer,
  type RecordedRequest,
  type VendorAnswer,
} from './vendor-server.ts';

export type { FakeFailure, RecordedRequest, RequestOutcome } from './vendor-server.ts';

/** Per-request character limits of the models the fake knows. */
const MODEL_LIMITS: Readonly<Record<string, number>> = {
  eleven_multilingual_v2: 10_000,
  eleven_v3: 5_000,
  eleven_flash_v2_5: 40_000,
  eleven_turbo_v2_5: 40_000,
};

/** `output_format` values ElevenLabs documents; the fake answers the `pcm_*` ones. */
const PCM_FORMATS: Readonly<Record<string, number>> = {
  pcm_8000: 8000,
  pcm_16000: 16000,
  pcm_22050: 22050,
  pcm_24000: 24000,
  pcm_32000: 32000,
  pcm_44100: 44100,
  pcm_48000: 48000,
};

const STREAM_PATH = /^\/v1\/text-to-speech\/([^/]+)(\/stream(\/with-timestamps)?)?$/;

/**
 * A fake ElevenLabs text-to-speech API on 127.0.0.1 speaking the documented wire protocol
 * of `POST /v1/text-to-speech/{voice_id}/stream?output_format=pcm_<rate>`:
 *
 * - `xi-api-key` header; a missing or wrong key gets 401
 *   `{ "detail": { "status": "invalid_api_key", "message": ... } }`.
 * - JSON body `{ text, model_id, voice_settings? }`; text over the model's limit (v2 10,000,
 *   v3 5,000 characters) gets 400 `max_character_limit_exceeded`; `voice_settings.speed`
 *   outside 0.7..1.2 gets 400 `invalid_voice_settings`; an unknown `output_format` gets a
 *   422 validation list.
 * - 200 answers stream headerless s16le mono PCM at the requested rate (espeak-ng speech,
 *   resampled), chunked, with a `request-id` header.
 * - Only PCM output is implemented; MP3, Opus and μ-law requests get 400.
 *
 * @example
 * const fake = await FakeElevenLabs.start();
 * fake.failNext({ kind: 'status', status: 429 });
 * const provider = new ElevenLabsProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
 * await fake.close();
 */
export class FakeElevenLabs extends FakeVendorServer {
  protected readonly credentialHeader = 'xi-api-key';
  /** Voices of the account (instant clones), see {@link ElevenLabsVoiceLibrary}. */
  readonly library = new ElevenLabsVoiceLibrary();
  /** When true, synthesis on a voice id the library does not hold answers 404. */
  readonly knownVoicesOnly: boolean;

  protected constructor(options: FakeVendorOptions & { knownVoicesOnly?: boolean } = {}) {
    super(options);
    this.knownVoicesOnly = options.knownVoicesOnly ?? false;
  }

  /** Starts a fake on an ephemeral port. */
  static async start(
    options: FakeVendorOptions & { knownVoicesOnly?: boolean } = {},
  ): Promise<FakeElevenLabs> {
    const fake = new FakeElevenLabs(options);
    await fake.listen();
    return fake;
  }

  protected override accept(request: RecordedRequest): void {
    if (this.library.handles(request.path)) this.library.accept(request);
  }

  protected checkAuth(req: IncomingMessage): { present: boolean; valid: boolean } {
    const key = req.headers['xi-api-key'];
    return { present: typeof key === 'string' && key !== '', valid: key === this.apiKey };
  }

  protected parseBody(_req: IncomingMessage, raw: Buffer): unknown {
    return JSON.parse(raw.toString('utf8'));
  }

  /** Every answer carries a `request-id`, as ElevenLabs' do. */
  protected override answerHeaders(): Record<string, string> {
    return { 'request-id': randomBytes(10).toString('hex') };
  }

  protected errorBody(status: number): unknown {
    const [code, message] = ERROR_TEXT[status] ?? ['error', `HTTP ${status}`];
    return { detail: { status: code, message } };
  }

  protected answer(request: RecordedRequest): VendorAnswer {
    const match = STREAM_PATH.exec(request.path);
    if (match === null && this.library.handles(request.path)) return this.library.answer(request);
    if (request.method !== 'POST' || match === null) {
      return error(404, 'not_found', 'Not found');
    }
    if (!request.auth.valid) {
      return error(401, 'invalid_api_key', 'Invalid API key');
    }
    const voiceId = decodeURIComponent(match[1] ?? '');
    if (this.knownVoicesOnly && !this.library.voices.has(voiceId)) {
      return error(404, 'voice_not_found', `A voice with voice_id ${voiceId} was not found.`);
    }
    const body = request.body as {
      text?: unknown;
      model_id?: unknown;
      voice_settings?: { speed?: unknown } | null;
    };
    if (typeof body !== 'object' || body === null || typeof body.text !== 'string') {
      return validation(['body', 'text'], 'missing', 'Field required');
    }
    const model = typeof body.model_id === 'string' ? body.model_id : 'eleven_multilingual_v2';
    const limit = MODEL_LIMITS[model];
    if (limit === undefined) {
      return error(400, 'model_not_found', `A model with model ID ${model} does not exist`);
    }
    const length = Array.from(body.text).length;
    if (length > limit) {
      return error(
        400,
        'max_character_limit_exceeded',
        `Text is too long: ${length} characters, the limit for ${model} is ${limit}.`,
      );
    }
    const speed = body.voice_settings?.speed;
    if (speed !== undefined && (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)) {
      return error(400, 'invalid_voice_settings', 'speed must be between 0.7 and 1.2');
    }
    const format = request.query.output_format ?? 'mp3_44100_128';
    const sampleRateHz = PCM_FORMATS[format];
    if (sampleRateHz === undefined) {
      return /^(mp3|opus|ulaw|alaw)_/.test(format)
        ? error(400, 'unsupported_by_fake', `the fake only serves pcm_* output, not ${format}`)
        : validation(['query', 'output_format'], 'enum', `Input should be a known format`);
    }
    if (match[3] !== undefined) {
      const text = body.text;
      return {
        kind: 'audio',
        text,
        sampleRateHz,
        ...(typeof speed === 'number' ? { speed } : {}),
        headers: { 'content-type': 'application/json', 'x-character-count': String(length) },
        frame: (piece, offset, audio) =>
          timestampsLine(text, piece, offset / 2, audio.byteLength / 2, sampleRateHz),
      };
    }
    return {
      kind: 'audio',
      text: body.text,
      sampleRateHz,
      ...(typeof speed === 'number' ? { speed } : {}),
      headers: { 'content-type': 'audio/pcm', 'x-character-count': String(length) },
    };
  }
}

const ERROR_TEXT: Readonly<Record<number, readonly [string, string]>> = {
  400: ['invalid_request', 'The request is invalid.'],
  401: ['invalid_api_key', 'Invalid API key'],
  402: ['payment_required', 'The account needs a subscription.'],
  403: ['missing_permissions', 'The API key lacks the text_to_speech permission.'],
  422: ['validation_error', 'Unprocessable entity.'],
  429: ['too_many_concurrent_requests', 'Too many concurrent requests for your plan.'],
  500: ['internal_server_error', 'Internal server error.'],
  502: ['bad_gateway', 'Bad gateway.'],
  503: ['system_busy', 'The system is experiencing heavy traffic, please try again later.'],
  504: ['gateway_timeout', 'Gateway timeout.'],
};

function error(status: number, code: string, message: string): VendorAnswer {
  return { kind: 'error', status, body: { detail: { status: code, message } } };
}

function validation(loc: string[], type: string, msg: string): VendorAnswer {
  return { kind: 'error', status: 422, body: { detail: [{ loc, type, msg }] } };
}

/**
 * The fake's character alignment of `text` over `totalSamples` of audio: character `i` of
 * `n` (code points, spaces included) spans `[i, i + 1] * duration / n`, in seconds from the
 * start of the request's audio.
 */
export function fakeCharacterTimes(
  text: string,
  totalSamples: number,
  sampleRateHz: number,
): { character: string; startS: number; endS: number }[] {
  const characters = Array.from(text);
  const durationS = totalSamples / sampleRateHz;
  return characters.map((character, i) => ({
    character,
    startS: (i * durationS) / characters.length,
    endS: ((i + 1) * durationS) / characters.length,
  }));
}

/**
 * One line of `/stream/with-timestamps`, as ElevenLabs documents it: the piece's audio in
 * base64 and the alignment of the characters that start within it.
 */
function timestampsLine(
  text: string,
  piece: Buffer,
  firstSample: number,
  totalSamples: number,
  sampleRateHz: number,
): Buffer {
  const startS = firstSample / sampleRateHz;
  const endS = (firstSample + piece.byteLength / 2) / sampleRateHz;
  const last = firstSample + piece.byteLength / 2 >= totalSamples;
  const chars = fakeCharacterTimes(text, totalSamples, sampleRateHz).filter(
    (c) => c.startS >= startS && (c.startS < endS || last),
  );
  const alignment = {
    characters: chars.map((c) => c.character),
    character_start_times_seconds: chars.map((c) => c.startS),
    character_end_times_seconds: chars.map((c) => c.endS),
  };
  const line = {
    audio_base64: piece.toString('base64'),
    alignment: chars.length > 0 ? alignment : null,
    normalized_alignment: chars.length > 0 ? alignment : null,
  };
  return Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
}
