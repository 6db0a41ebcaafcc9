import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import { TranscriptionStream, type TranscriptionStreamOptions } from '../transcription/stream.ts';
import type {
  TranscriptionSession,
  TranscriptionSessionDetail,
  TranscriptionSessionList,
  TranscriptionSessionListQuery,
  TranscriptionToken,
} from '../types/transcription.ts';

/** Realtime speech to text: the `/v1/realtime-transcription` WebSocket, tokens and sessions. */
export class Transcription {
  /** Stored sessions and their transcripts. @example `await client.transcription.sessions.get(id)` */
  readonly sessions: TranscriptionSessions;

  /** @internal */
  constructor(private readonly http: HttpContext) {
    this.sessions = new TranscriptionSessions(http);
  }

  /**
   * Opens a realtime transcription session, sends `start` (and the audio, when given) and
   * returns a {@link TranscriptionStream} to iterate with `for await`.
   *
   * @example
   * ```ts
   * const stream = client.transcription.stream({ audio_format: 'pcm_16000', language: 'en' });
   * void (async () => {
   *   for await (const pcm of microphone) await stream.sendAudio(pcm);
   *   await stream.end();
   * })();
   * for await (const t of stream) if (t.final) console.log(t.text);
   * ```
   */
  stream(options: TranscriptionStreamOptions): TranscriptionStream {
    return new TranscriptionStream(this.http, options);
  }

  /**
   * A realtime transcription token (valid 2 minutes) for a browser or app; same as
   * `client.tokens.createTranscriptionToken`.
   *
   * @example
   * ```ts
   * const { token, websocket_url } = await client.transcription.createToken();
   * ```
   */
  async createToken(options?: RequestOptions): Promise<TranscriptionToken> {
    return createTranscriptionToken(this.http, options);
  }
}

/** `/v1/realtime-transcription-sessions`: what sessions received, heard and cost. */
export class TranscriptionSessions {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * One session with its final transcript (segments with their times).
   *
   * @example
   * ```ts
   * const { transcript, segments, cost } = await client.transcription.sessions.get(sessionId);
   * ```
   */
  async get(sessionId: string, options?: RequestOptions): Promise<TranscriptionSessionDetail> {
    const call = {
      method: 'GET',
      path: `/v1/realtime-transcription-sessions/${encodeURIComponent(sessionId)}`,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<TranscriptionSessionDetail>(this.http, call, options)).body;
  }

  /**
   * One page of the environment's sessions, newest first, without transcripts; page with
   * `cursor` = `next_cursor`.
   *
   * @example
   * ```ts
   * const { sessions, next_cursor } = await client.transcription.sessions.list({ limit: 10 });
   * ```
   */
  async list(
    query: TranscriptionSessionListQuery = {},
    options?: RequestOptions,
  ): Promise<TranscriptionSessionList> {
    const call = {
      method: 'GET',
      path: '/v1/realtime-transcription-sessions',
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<TranscriptionSessionList>(this.http, call, options)).body;
  }

  /**
   * Every session, page by page, newest first.
   *
   * @example
   * ```ts
   * for await (const session of client.transcription.sessions.listAll()) console.log(session.audio_ms);
   * ```
   */
  async *listAll(
    query: Omit<TranscriptionSessionListQuery, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<TranscriptionSession> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.sessions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}

/** `POST /v1/realtime-transcription-tokens`; minting is safe to repeat. */
export async function createTranscriptionToken(
  http: HttpContext,
  options?: RequestOptions,
): Promise<TranscriptionToken> {
  const call = {
    method: 'POST',
    path: '/v1/realtime-transcription-tokens',
    json: {},
    expect: 'json',
    idempotent: true,
  } as const;
  return (await send<TranscriptionToken>(http, call, options)).body;
}
