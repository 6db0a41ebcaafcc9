import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type { AgentSessionToken, AgentSessionTokenRequest } from '../types/sessions.ts';
import type { TranscriptionToken } from '../types/transcription.ts';
import type { TtsStreamToken } from '../types/tts.ts';
import { createTranscriptionToken } from './transcription.ts';

/**
 * Short-lived credentials for browsers and apps. Authenticate your own user and apply your
 * own limits before minting; mint a fresh one per connection.
 */
export class Tokens {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * A TTS stream token (valid 2 minutes) for `/v1/tts/stream`; it cannot call REST routes.
   * Minting is safe to repeat, so network failures are retried.
   *
   * @example
   * ```ts
   * app.post('/tts-token', requireUser, async (_req, res) => {
   *   const { token, websocket_url, expires_at } = await client.tokens.createTtsStreamToken();
   *   res.json({ token, websocket_url, expires_at });
   * });
   * ```
   */
  async createTtsStreamToken(options?: RequestOptions): Promise<TtsStreamToken> {
    const call = {
      method: 'POST',
      path: '/v1/tts/stream-tokens',
      json: {},
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<TtsStreamToken>(this.http, call, options)).body;
  }

  /**
   * A realtime transcription token (valid 2 minutes) for `/v1/realtime-transcription`; it
   * cannot call REST routes nor open `/v1/tts/stream`. Minting is safe to repeat.
   *
   * @example
   * ```ts
   * app.post('/transcription-token', requireUser, async (_req, res) => {
   *   res.json(await client.tokens.createTranscriptionToken()); // {token, expires_at, websocket_url}
   * });
   * ```
   */
  async createTranscriptionToken(options?: RequestOptions): Promise<TranscriptionToken> {
    return createTranscriptionToken(this.http, options);
  }

  /**
   * An Agent session token (valid 15 minutes, one conversation, this Agent only) for a
   * published Agent. Pass `end_user_id` when the Agent has memory, documents or calendar.
   * The answer can be handed to the client library's `sessionToken` callback unchanged.
   *
   * @example
   * ```ts
   * app.post('/session-token', requireUser, async (req, res) => {
   *   res.json(await client.tokens.createAgentSessionToken(AGENT_ID, { end_user_id: req.user.id }));
   * });
   * ```
   */
  async createAgentSessionToken(
    agentId: string,
    body: AgentSessionTokenRequest = {},
    options?: RequestOptions,
  ): Promise<AgentSessionToken> {
    const call = {
      method: 'POST',
      path: `/v1/agents/${encodeURIComponent(agentId)}/session-tokens`,
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentSessionToken>(this.http, call, options)).body;
  }
}
