import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Authenticator } from '../auth/authenticate.ts';
import type { CredentialWatch } from '../auth/credential-watch.ts';
import type { StreamTokens } from '../auth/stream-tokens.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { Database } from '../db/schema.ts';
import type { AnyRoute } from '../http/route.ts';
import type { WebSocketRoute } from '../http/websocket.ts';
import type { Logger } from '../observability/logger.ts';
import type { SttConfig } from '../stt/config.ts';
import { VoiceActivity } from '../stt/vad/voice-activity.ts';
import { TranscriptionEngine } from '../transcription/engine.ts';
import { transcriptionRoute, transcriptionWebsocketUrl } from '../transcription/route.ts';
import { transcriptionRoutes } from '../transcription/routes.ts';
import { TranscriptionSessionReads } from '../transcription/session-reads.ts';
import type { TranscriptionSessionStore } from '../transcription/session-store.ts';
import type { OriginAllowlist } from '../tts/stream/origins.ts';
import { StreamSlots } from '../tts/stream/stream-slots.ts';
import type { Config, Environment } from './config.ts';
import type { Domain } from './domain.ts';

/**
 * The api's realtime transcription: the WebSocket, its token and session routes, the
 * speech-to-text engine (created on the first session) and the voice-activity worker
 * (started with the first session that needs it), both closed by its domain's `close()`.
 */
export function createTranscriptionSide(deps: {
  config: Config;
  sttConfig: SttConfig;
  db: Kysely<Database>;
  redis: Redis;
  logger: Logger;
  /** Told when the concurrency limiter cannot reach Redis, and when it can again. */
  slotOutage: { failed(error: unknown): void; succeeded(): void };
  store: TranscriptionSessionStore;
  authenticator: Authenticator;
  /** Ends open sessions whose key is revoked or whose workspace is suspended. */
  credentials: CredentialWatch;
  origins: OriginAllowlist;
  tokens: StreamTokens;
  /** The configured `/v1/tts/stream` URL of an environment. */
  ttsWebsocketUrl: (environment: Environment) => string;
}): { route: WebSocketRoute; routes: AnyRoute[]; domain: Domain } {
  const { config } = deps;
  const logger = deps.logger.child({ component: 'transcription' });
  const engine = new TranscriptionEngine(deps.sttConfig, logger);
  const voiceActivity = new VoiceActivity(logger);
  const route = transcriptionRoute(deps.authenticator, deps.origins, deps.credentials, {
    store: deps.store,
    engine,
    voiceActivity,
    slots: new StreamSlots(deps.redis, {
      prefix: `${config.REDIS_PREFIX}:transcription`,
      maxPerWorkspace: config.TRANSCRIPTION_MAX_CONCURRENT_PER_WORKSPACE,
      onError: (error) => deps.slotOutage.failed(error),
      onRecovered: () => deps.slotOutage.succeeded(),
    }),
    logger,
    priceMillicreditsPerMinute: Math.round(
      config.PRICE_STT_CREDITS_PER_MINUTE * MILLICREDITS_PER_CREDIT,
    ),
    idleTimeoutMs: config.TRANSCRIPTION_IDLE_TIMEOUT_MS,
    maxSessionMs: config.TRANSCRIPTION_MAX_SESSION_MS,
  });
  const routes = transcriptionRoutes({
    tokens: deps.tokens,
    reads: new TranscriptionSessionReads(deps.db),
    websocketUrl: (environment) => transcriptionWebsocketUrl(deps.ttsWebsocketUrl(environment)),
  });
  return {
    route,
    routes,
    domain: {
      name: 'realtime transcription',
      routes,
      webSockets: [route],
      close: async () => {
        await engine.close();
        await voiceActivity.close();
      },
    },
  };
}
