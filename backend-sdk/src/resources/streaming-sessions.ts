import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  StreamingSession,
  StreamingSessionEventInput,
  StreamingSessionEventList,
  StreamingSessionList,
} from '../types/streaming-sessions.ts';

const path = (sessionId: string, rest = '') =>
  `/v1/streaming-sessions/${encodeURIComponent(sessionId)}${rest}`;

/**
 * `/v1/streaming-sessions`: report a playback session that streams many utterances, its
 * playback events, and read the usage of its speech requests.
 */
export class StreamingSessions {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * Opens a session; send its `partner_session_id` with each of its speech requests.
   *
   * @example
   * ```ts
   * const session = await client.streamingSessions.create({ metadata: { screen: 'checkout' } });
   * const stream = client.tts.stream({ voice_id, output_format: 'pcm_24000', partner_session_id: session.partner_session_id });
   * ```
   */
  async create(
    body: { partner_session_id?: string; metadata?: Record<string, unknown> } = {},
    options?: RequestOptions,
  ): Promise<StreamingSession> {
    const call = {
      method: 'POST',
      path: '/v1/streaming-sessions',
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<StreamingSession>(this.http, call, options)).body;
  }

  /** One session with its usage. @example `await client.streamingSessions.get(id)` */
  async get(sessionId: string, options?: RequestOptions): Promise<StreamingSession> {
    const call = {
      method: 'GET',
      path: path(sessionId),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<StreamingSession>(this.http, call, options)).body;
  }

  /** One page, newest first. @example `await client.streamingSessions.list({ status: 'active' })` */
  async list(
    query: { status?: 'active' | 'ended'; limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<StreamingSessionList> {
    const call = {
      method: 'GET',
      path: '/v1/streaming-sessions',
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<StreamingSessionList>(this.http, call, options)).body;
  }

  /**
   * Replaces the metadata and/or ends the session (once).
   *
   * @example
   * ```ts
   * await client.streamingSessions.update(session.id, { status: 'ended' });
   * ```
   */
  async update(
    sessionId: string,
    body: { status?: 'active' | 'ended'; metadata?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<StreamingSession> {
    const call = {
      method: 'PATCH',
      path: path(sessionId),
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<StreamingSession>(this.http, call, options)).body;
  }

  /**
   * Reports up to 100 playback events, in order. Not retried after a network failure: a
   * retry could report them twice.
   *
   * @example
   * ```ts
   * await client.streamingSessions.reportEvents(session.id, [
   *   { type: 'first_audio_played', request_id, data: { latency_ms: 180 } },
   * ]);
   * ```
   */
  async reportEvents(
    sessionId: string,
    events: StreamingSessionEventInput[],
    options?: RequestOptions,
  ): Promise<{ accepted: number; first_seq: number; last_seq: number }> {
    const call = {
      method: 'POST',
      path: path(sessionId, '/events'),
      json: { events },
      expect: 'json',
      idempotent: false,
    } as const;
    return (
      await send<{ accepted: number; first_seq: number; last_seq: number }>(
        this.http,
        call,
        options,
      )
    ).body;
  }

  /** One page of events in order. @example `await client.streamingSessions.events(id, { type: 'underrun' })` */
  async events(
    sessionId: string,
    query: { type?: string; limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<StreamingSessionEventList> {
    const call = {
      method: 'GET',
      path: path(sessionId, '/events'),
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<StreamingSessionEventList>(this.http, call, options)).body;
  }
}
