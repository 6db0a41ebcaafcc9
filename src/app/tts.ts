import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { AgentSessions } from '../agent-sessions/agent-sessions.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import type { CredentialWatch } from '../auth/credential-watch.ts';
import type { StreamTokens } from '../auth/stream-tokens.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { Database } from '../db/schema.ts';
import { limiterOutage, synthesisObserver } from '../observability/domain-metrics.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { RateLimiter } from '../ratelimit/limiter.ts';
import { OneShotSynthesis } from '../tts/oneshot.ts';
import { KeyRateLimitGuard } from '../tts/rate-limit.ts';
import { ttsRoutes } from '../tts/routes.ts';
import { AudioSpool } from '../tts/spool.ts';
import type { OriginAllowlist } from '../tts/stream/origins.ts';
import { ttsStreamRoute } from '../tts/stream/route.ts';
import type { StreamDependencies } from '../tts/stream/stream-dependencies.ts';
import { StreamSlots } from '../tts/stream/stream-slots.ts';
import { streamTokenRoutes } from '../tts/stream/token-routes.ts';
import type { VoiceCatalog } from '../voices/catalog.ts';
import type { Config, Environment } from './config.ts';
import type { Domain } from './domain.ts';
import { createAudioPersister, createTranscoders } from './synthesis.ts';

export interface SynthesisDomainDependencies {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  catalog: VoiceCatalog;
  ledger: Ledger;
  authenticator: Authenticator;
  credentials: CredentialWatch;
  origins: OriginAllowlist;
  streamTokens: StreamTokens;
  /** The configured `/v1/tts/stream` URL of an environment. */
  websocketUrl: (environment: Environment) => string;
}

/**
 * Synthesis: one-shot `POST /v1/tts` (spooled, rate limited per key and workspace), the
 * `/v1/tts/stream` WebSocket and its tokens, audio persistence and the transcoders. Starting
 * prepares the spool (files of this process id are a crashed earlier life's); closing
 * queues the last batch of persisted audio while its queue is still open, then closes the
 * queue and the transcode pool.
 */
export function synthesisDomain(deps: SynthesisDomainDependencies) {
  const { config, redis, logger, metrics } = deps;
  const rateOutage = limiterOutage(metrics, logger, 'rate_limit');
  const rateLimiter = new RateLimiter(redis, {
    prefix: config.REDIS_PREFIX,
    onError: (error) => rateOutage.failed(error),
    onRecovered: () => rateOutage.succeeded(),
  });
  const { audioQueue, audioPersistence, persister } = createAudioPersister(config, metrics, logger);
  const { transcodePool, transcoders } = createTranscoders(config);
  const guard = new KeyRateLimitGuard(
    rateLimiter,
    config.TTS_RATE_LIMIT_PER_MINUTE,
    config.TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE,
  );
  const spool = new AudioSpool({
    dir: config.ONESHOT_SPOOL_DIR ?? path.resolve(config.DATA_DIR, 'spool'),
    memoryMaxBytes: config.ONESHOT_MEMORY_MAX_BYTES,
    logger,
  });
  const common = { catalog: deps.catalog, ledger: deps.ledger, guard, persister, logger };
  const observer = synthesisObserver(metrics);
  const oneShot = new OneShotSynthesis({
    ...common,
    spool,
    opusComplexity: config.OPUS_COMPLEXITY,
    transcoders,
    observer,
    maxConcurrent: config.ONESHOT_MAX_CONCURRENT,
  });
  const domain: Domain = {
    name: 'synthesis',
    routes: [
      ...ttsRoutes(oneShot),
      ...streamTokenRoutes({ tokens: deps.streamTokens, websocketUrl: deps.websocketUrl }),
    ],
    webSockets: [streamRoute(deps, { ...common, observer, transcoders })],
    start: async () => {
      await spool.prepare();
    },
    close: async () => {
      await audioPersistence?.close();
      await audioQueue?.close();
      await transcodePool?.close();
    },
  };
  return { domain, oneShot, rateLimiter };
}

/** `/v1/tts/stream`; Agent speech is accepted only while its Agent session runs. */
function streamRoute(
  deps: SynthesisDomainDependencies,
  shared: Pick<
    StreamDependencies,
    'catalog' | 'ledger' | 'guard' | 'persister' | 'logger' | 'observer' | 'transcoders'
  >,
) {
  const { config, metrics, logger } = deps;
  const slotOutage = limiterOutage(metrics, logger, 'stream_slots');
  const speakingSessions = new AgentSessions(deps.db, {
    heartbeatTimeoutMs: config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
  });
  return ttsStreamRoute(
    deps.authenticator,
    deps.origins,
    deps.credentials,
    {
      ...shared,
      slots: new StreamSlots(deps.redis, {
        prefix: config.REDIS_PREFIX,
        maxPerWorkspace: config.STREAM_MAX_CONCURRENT_PER_WORKSPACE,
        onError: (error) => slotOutage.failed(error),
        onRecovered: () => slotOutage.succeeded(),
      }),
      opusComplexity: config.OPUS_COMPLEXITY,
      idleTimeoutMs: config.STREAM_IDLE_TIMEOUT_MS,
      persistMaxBytes: config.AUDIO_PERSISTENCE_MAX_BYTES,
    },
    (workspaceId, sessionId) => speakingSessions.runs(workspaceId, sessionId),
  );
}
