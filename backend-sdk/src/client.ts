import { type HttpContext, send } from './internal/http.ts';
import type { ClientOptions, RequestOptions } from './options.ts';
import { AgentSessions } from './resources/agent-sessions.ts';
import { Agents } from './resources/agents.ts';
import { GoogleCalendar } from './resources/google-calendar.ts';
import { Models } from './resources/models.ts';
import { StreamingSessions } from './resources/streaming-sessions.ts';
import { Tokens } from './resources/tokens.ts';
import { Transcription } from './resources/transcription.ts';
import { Translation } from './resources/translation.ts';
import { Tts } from './resources/tts.ts';
import { Avatars, Voices } from './resources/voices.ts';
import { Webhooks } from './resources/webhooks.ts';
import { DEFAULT_RETRY_POLICY } from './retry.ts';
import { VERSION } from './version.ts';

/**
 * The REST and streaming client of one environment, for a customer backend holding a
 * permanent workspace key. Every method takes {@link RequestOptions} last (`signal`,
 * `timeoutMs`, `maxAttempts`) and rejects with a typed `AwpError`.
 *
 * @example
 * ```ts
 * import { AwpClient, VoiceNotFoundError } from '@awp/backend-sdk';
 *
 * const client = new AwpClient({ apiKey: process.env.AWP_API_KEY!, baseUrl: 'https://api.example.com' });
 * const { voices } = await client.voices.list();
 * try {
 *   const speech = await client.tts.synthesize({ text: 'Hi', voice_id: voices[0]!.id, output_format: 'pcm_24000' });
 * } catch (error) {
 *   if (error instanceof VoiceNotFoundError) { ... }
 * }
 * ```
 */
export class AwpClient {
  /** The voice catalog. @example `await client.voices.list()` */
  readonly voices: Voices;
  /** The avatar catalog. @example `await client.avatars.list()` */
  readonly avatars: Avatars;
  /** The language models and speech-to-text engines of the deployment. @example `await client.models.list()` */
  readonly models: Models;
  /** One-shot and streaming synthesis. @example `client.tts.stream({ ... })` */
  readonly tts: Tts;
  /** Agents, their cards, text messages and Agent session starts. @example `await client.agents.get(id)` */
  readonly agents: Agents;
  /** Reports of Agent sessions. @example `await client.agentSessions.get(sessionId)` */
  readonly agentSessions: AgentSessions;
  /** Short-lived credentials for browsers and apps. @example `await client.tokens.createTtsStreamToken()` */
  readonly tokens: Tokens;
  /** Webhook endpoints and their deliveries. @example `await client.webhooks.list()` */
  readonly webhooks: Webhooks;
  /** Translation previews. @example `client.translation.preview({ text, target_language: 'fr' })` */
  readonly translation: Translation;
  /** Playback sessions, their events and usage. @example `await client.streamingSessions.create()` */
  readonly streamingSessions: StreamingSessions;
  /** End users' Google Calendar connections. @example `await client.googleCalendar.getConnection(userId)` */
  readonly googleCalendar: GoogleCalendar;
  /** Realtime speech to text and its sessions. @example `client.transcription.stream({ ... })` */
  readonly transcription: Transcription;
  readonly #http: HttpContext;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required (a workspace key, awp_...)');
    if (!/^https?:\/\//i.test(options.baseUrl ?? '')) {
      throw new TypeError('baseUrl must be an http(s) URL, such as https://api.example.com');
    }
    this.#http = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: {
        ...DEFAULT_RETRY_POLICY,
        ...options.retry,
        ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      },
      headers: { ...options.headers },
      fetch: options.fetch ?? globalThis.fetch,
      userAgent: `awp-backend-sdk/${VERSION} node/${process.versions.node}`,
    };
    this.voices = new Voices(this.#http);
    this.avatars = new Avatars(this.#http);
    this.models = new Models(this.#http);
    this.tts = new Tts(this.#http);
    this.agents = new Agents(this.#http);
    this.agentSessions = new AgentSessions(this.#http);
    this.tokens = new Tokens(this.#http);
    this.webhooks = new Webhooks(this.#http);
    this.streamingSessions = new StreamingSessions(this.#http);
    this.translation = new Translation(this.#http);
    this.googleCalendar = new GoogleCalendar(this.#http);
    this.transcription = new Transcription(this.#http);
  }

  /**
   * The service's OpenAPI 3.1 document (`GET /v1/openapi.json`).
   *
   * @example
   * ```ts
   * const document = await client.openApiDocument();
   * console.log(Object.keys(document.paths as object));
   * ```
   */
  async openApiDocument(options?: RequestOptions): Promise<Record<string, unknown>> {
    const call = {
      method: 'GET',
      path: '/v1/openapi.json',
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<Record<string, unknown>>(this.#http, call, options)).body;
  }

  /** Never shows the key. @example `console.log(String(client))` */
  toString(): string {
    return `AwpClient(${this.#http.baseUrl})`;
  }
}
