import { hostname } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Agents } from '../agents/agents.ts';
import { googleCalendarRoutes } from '../agents/capabilities/calendar/routes.ts';
import { googleCalendarFromConfig } from '../agents/capabilities/calendar/service.ts';
import { Authenticator } from '../auth/authenticate.ts';
import { CredentialWatch } from '../auth/credential-watch.ts';
import { ApiKeyStore } from '../auth/key-store.ts';
import { StreamTokens } from '../auth/stream-tokens.ts';
import { InstanceHeartbeat } from '../billing/instance-heartbeat.ts';
import { Ledger } from '../billing/ledger.ts';
import { LlmLedger } from '../billing/llm-ledger.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { Database } from '../db/schema.ts';
import { demoRoutes } from '../demo/routes.ts';
import { BodyBudget } from '../http/body-budget.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { routeHandler } from '../http/pipeline.ts';
import type { AnyRoute } from '../http/route.ts';
import { prepareUploadDirectory } from '../http/upload-directory.ts';
import { type Listener, UwsHttpServer } from '../http/uws/server.ts';
import { openVoiceCloning } from '../jobs/voice-cloning.ts';
import { type JobWorkers, startJobWorkers } from '../jobs/workers.ts';
import { LiveSessions } from '../live-sessions/live-sessions.ts';
import { SessionRecordings } from '../live-sessions/session-recordings.ts';
import { modelRoutes } from '../models/routes.ts';
import { limiterOutage, synthesisObserver } from '../observability/domain-metrics.ts';
import type { Logger } from '../observability/logger.ts';
import { Metrics } from '../observability/metrics.ts';
import { type MetricsListener, startMetricsListener } from '../observability/metrics-listener.ts';
import { dashboardPageRoutes } from '../operator/dashboard-pages.ts';
import { secureCookieEnvironments } from '../operator/guard.ts';
import { createOperatorApi } from '../operator/index.ts';
import { RateLimiter } from '../ratelimit/limiter.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { openAudioStores } from '../storage/stores.ts';
import { streamingSessionRoutes } from '../streaming-sessions/routes.ts';
import { loadSttConfig, type SttConfig } from '../stt/config.ts';
import { systemRoutes } from '../system/routes.ts';
import { TranscriptionSessionStore } from '../transcription/session-store.ts';
import { OneShotSynthesis } from '../tts/oneshot.ts';
import { configureVendors, VENDORS } from '../tts/providers/vendors.ts';
import { KeyRateLimitGuard } from '../tts/rate-limit.ts';
import { ttsRoutes } from '../tts/routes.ts';
import { AudioSpool } from '../tts/spool.ts';
import { OriginAllowlist } from '../tts/stream/origins.ts';
import { ttsStreamRoute } from '../tts/stream/route.ts';
import { StreamSlots } from '../tts/stream/stream-slots.ts';
import { configuredWebsocketUrl, streamTokenRoutes } from '../tts/stream/token-routes.ts';
import { VoiceCatalog } from '../voices/catalog.ts';
import { ProviderAccounts } from '../voices/provider-accounts.ts';
import { voiceRoutes } from '../voices/routes.ts';
import { VoiceStore } from '../voices/voice-store.ts';
import { WEBHOOK_EVENT_SCHEMAS } from '../webhooks/event-schemas.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { createAgentSide } from './agents.ts';
import { type Config, type Environment, tokenSigningSecret } from './config.ts';
import {
  createAudioPersister,
  createSpeechProviders,
  createTranscoders,
  vendorPricing,
} from './synthesis.ts';
import { createTranscriptionSide } from './transcription.ts';

/**
 * `info.version` of the OpenAPI document: a breaking change needs a new major or minor
 * (docs/api-changelog.md has the policy and one entry per version).
 */
export const API_VERSION = '1.8.0';

/**
 * The OpenAPI document of the `/v1` routes. It depends on the routes' schemas only, never
 * on configuration: every deployment serves the same bytes (`npm run openapi:write` writes
 * it to docs/openapi.json).
 */
export function apiDocument(routes: readonly AnyRoute[]): object {
  return buildOpenApiDocument(
    routes,
    { title: 'AWP speech and agents API', version: API_VERSION },
    WEBHOOK_EVENT_SCHEMAS,
  );
}

/** How long an address that signed in to an email lets it past that email's back-off. */
const OPERATOR_KNOWN_ADDRESS_TTL_MS = 90 * 24 * 3_600_000;

export interface ApiDependencies {
  config: Config;
  /** The speech-to-text variables (`STT_*`); read from the environment when omitted. */
  sttConfig?: SttConfig;
  db: Kysely<Database>;
  redis: Redis;
  logger: Logger;
}

export interface Api {
  server: UwsHttpServer;
  routes: AnyRoute[];
  keyStore: ApiKeyStore;
  /** Managed Agents (the first start creates a starter Agent through it). */
  agents: Agents;
  /**
   * Binds the public listeners and the internal metrics listener; resolves with the
   * public ports bound (the metrics port is logged).
   */
  listen(listeners: Listener[]): Promise<(Listener & { port: number })[]>;
  /** Starts background work: heartbeat, abandoned-request sweep, in-process job workers. */
  start(): Promise<void>;
  /** Marks the process as shutting down: readiness fails from now on. */
  beginShutdown(): void;
  close(): Promise<void>;
}

/** Wires domain modules to routes and routes to the uWS server. Nothing listens yet. */
export function createApi(deps: ApiDependencies): Api {
  const { config, db, redis, logger } = deps;
  const instanceId = config.INSTANCE_ID ?? `api@${hostname()}:${config.PORT || process.pid}`;
  const metrics = new Metrics();
  const keyStore = new ApiKeyStore(
    db,
    { cacheTtlMs: config.KEY_CACHE_TTL_MS, lastUsedFlushMs: config.KEY_LAST_USED_FLUSH_MS },
    logger,
  );
  const signingSecret = tokenSigningSecret(config);
  const streamTokens = new StreamTokens(signingSecret);
  const authenticator = new Authenticator(keyStore, streamTokens);
  const credentials = new CredentialWatch({
    keys: keyStore,
    intervalMs: config.REVOCATION_CHECK_INTERVAL_MS,
    logger,
  });

  const vendors = configureVendors(config, VENDORS);
  const { nativeProvider, neural, upstream } = createSpeechProviders(
    config,
    vendors,
    metrics,
    logger,
  );
  const voiceStore = new VoiceStore(db);
  const secretBox = SecretBox.fromConfig({
    secretsKey: config.SECRETS_KEY,
    dataDir: config.DATA_DIR,
  });
  const providerAccounts = new ProviderAccounts(db, secretBox);
  const catalog = new VoiceCatalog({
    nativeProvider,
    nativePricing: {
      millicreditsPer1kChars: config.PRICE_NATIVE_CREDITS_PER_1K_CHARS * MILLICREDITS_PER_CREDIT,
      passThrough: false,
    },
    liteVoices: config.NATIVE_LITE_VOICES,
    ...(neural
      ? {
          neural: {
            provider: neural.provider,
            voices: neural.voices,
            pricing: {
              millicreditsPer1kChars:
                config.PRICE_NEURAL_CREDITS_PER_1K_CHARS * MILLICREDITS_PER_CREDIT,
              passThrough: false,
            },
          },
        }
      : {}),
    store: voiceStore,
    accounts: providerAccounts,
    upstream,
    upstreamPricing: vendorPricing(vendors),
    logger,
  });
  const ledger = new Ledger(db, instanceId);
  const llmLedger = new LlmLedger(db, instanceId);
  const transcriptionStore = new TranscriptionSessionStore(db, instanceId);
  const heartbeat = new InstanceHeartbeat(
    db,
    ledger,
    instanceId,
    logger,
    [llmLedger, transcriptionStore],
    (rows) => {
      metrics.ledgerSweeps.inc();
      metrics.ledgerSweptRows.inc(rows);
    },
  );
  const rateOutage = limiterOutage(metrics, logger, 'rate_limit');
  const rateLimiter = new RateLimiter(redis, {
    prefix: config.REDIS_PREFIX,
    onError: (error) => rateOutage.failed(error),
    onRecovered: () => rateOutage.succeeded(),
  });
  const slotOutage = limiterOutage(metrics, logger, 'stream_slots');
  const observer = synthesisObserver(metrics);

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
  const oneShot = new OneShotSynthesis({
    catalog,
    ledger,
    persister,
    spool,
    guard,
    logger,
    opusComplexity: config.OPUS_COMPLEXITY,
    transcoders,
    observer,
    maxConcurrent: config.ONESHOT_MAX_CONCURRENT,
  });
  const origins = new OriginAllowlist(config.STREAM_ALLOWED_ORIGINS);
  // Agent speech is accepted only while its live session runs.
  const speakingSessions = new LiveSessions(db, {
    heartbeatTimeoutMs: config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
  });
  const streamRoute = ttsStreamRoute(
    authenticator,
    origins,
    credentials,
    {
      catalog,
      ledger,
      guard,
      slots: new StreamSlots(redis, {
        prefix: config.REDIS_PREFIX,
        maxPerWorkspace: config.STREAM_MAX_CONCURRENT_PER_WORKSPACE,
        onError: (error) => slotOutage.failed(error),
        onRecovered: () => slotOutage.succeeded(),
      }),
      observer,
      persister,
      logger,
      opusComplexity: config.OPUS_COMPLEXITY,
      transcoders,
      idleTimeoutMs: config.STREAM_IDLE_TIMEOUT_MS,
      persistMaxBytes: config.AUDIO_PERSISTENCE_MAX_BYTES,
    },
    (workspaceId, sessionId) => speakingSessions.runs(workspaceId, sessionId),
  );

  const publicBaseUrls = {
    ...(config.PUBLIC_BASE_URL ? { production: config.PUBLIC_BASE_URL } : {}),
    ...(config.PUBLIC_DEV_BASE_URL ? { development: config.PUBLIC_DEV_BASE_URL } : {}),
  };
  // Synthesized audio and session recordings: DATA_DIR/audio or the bucket, shared with the worker.
  const audioStore = openAudioStores(config).audio;
  const sessionRecordings = new SessionRecordings(db, audioStore);
  const agentSide = createAgentSide({
    config,
    db,
    redis,
    logger,
    signingSecret,
    keyStore,
    llmLedger,
    recordings: sessionRecordings,
    publicBaseUrls,
    secretBox,
  });
  const { llmCatalog, agents, agentSessionTokens, liveSessions } = agentSide;

  const listenerPorts: Partial<Record<Environment, number>> = {};
  const websocketUrl = (environment: Environment) =>
    configuredWebsocketUrl(
      environment === 'production' ? config.PUBLIC_WS_URL : config.PUBLIC_DEV_WS_URL,
      publicBaseUrls[environment],
      listenerPorts[environment] ?? (environment === 'production' ? config.PORT : config.DEV_PORT),
    );
  const sttConfig = deps.sttConfig ?? loadSttConfig();
  const transcription = createTranscriptionSide({
    config,
    sttConfig,
    db,
    redis,
    logger,
    slotOutage: limiterOutage(metrics, logger, 'transcription_slots'),
    store: transcriptionStore,
    authenticator,
    credentials,
    origins,
    tokens: streamTokens,
    ttsWebsocketUrl: websocketUrl,
  });
  let metricsListener: MetricsListener | undefined;

  let shuttingDown = false;
  let openApi: object | undefined;
  let workers: JobWorkers | undefined;

  const routes: AnyRoute[] = [
    ...systemRoutes({
      db,
      redis,
      openApiDocument: () => {
        openApi ??= apiDocument(routes);
        return openApi;
      },
      shuttingDown: () => shuttingDown,
    }),
    ...voiceRoutes(catalog),
    ...ttsRoutes(oneShot),
    ...streamTokenRoutes({
      tokens: streamTokens,
      websocketUrl,
    }),
    ...agentSide.routes,
    ...modelRoutes(llmCatalog, sttConfig),
    ...transcription.routes,
    ...webhookRoutes(db, secretBox),
    ...streamingSessionRoutes(db),
    ...googleCalendarRoutes(
      googleCalendarFromConfig({ config, db, secretBox, logger }),
      publicBaseUrls,
    ),
  ];

  // Clone attempts are queued here and run by the jobs process (or this one, single node).
  const voiceCloning = openVoiceCloning({ config, db, logger });
  // Internal: served beside /v1 but kept out of /v1/openapi.json (docs/decisions.md).
  const operatorApi = createOperatorApi({
    db,
    cloning: voiceCloning.cloning,
    limiter: rateLimiter,
    keyStore,
    store: voiceStore,
    synthesis: oneShot,
    catalog,
    audioStore,
    accounts: providerAccounts,
    secretBox,
    agents,
    llm: llmCatalog,
    liveSessions,
    recordings: sessionRecordings,
    vendors,
    upstreamTimeouts: {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    },
    sessionTtlMs: config.OPERATOR_SESSION_TTL_HOURS * 3_600_000,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    signIn: {
      attemptsPerMinute: config.OPERATOR_SIGNIN_ATTEMPTS_PER_MINUTE,
      emailFailures: config.OPERATOR_SIGNIN_EMAIL_FAILURES,
      failureWindowMs: config.OPERATOR_SIGNIN_FAILURE_WINDOW_MINUTES * 60_000,
      knownAddressTtlMs: OPERATOR_KNOWN_ADDRESS_TTL_MS,
      trustedProxyHeader: config.TRUSTED_PROXY_HEADER,
    },
    secureCookies: secureCookieEnvironments(config),
    demoPage: config.DEMO_PAGE,
  });

  const uploadDir = config.UPLOAD_SPOOL_DIR ?? path.resolve(config.DATA_DIR, 'uploads');
  const server = new UwsHttpServer({
    routes: [
      ...[...routes, ...operatorApi.routes].map((route) => ({
        method: route.method,
        pattern: route.path,
        bodyLimitBytes: route.bodyLimitBytes ?? config.BODY_LIMIT_BYTES,
        ...routeHandler(route, authenticator),
        ...(route.cors ? { cors: route.cors } : {}),
        ...(route.spoolBody ? { spoolBody: true } : {}),
      })),
      // Not part of /v1 (no OpenAPI entry); answers only when DEMO_PAGE is on.
      ...demoRoutes({ enabled: config.DEMO_PAGE, db, agents, tokens: agentSessionTokens }),
      // The operator dashboard's web app; its data comes from the operator API above.
      ...dashboardPageRoutes(),
    ],
    allowsOrigin: (origin) => origins.allows(origin),
    bodyBudget: new BodyBudget(config.BODY_BUDGET_BYTES),
    spoolDirectory: uploadDir,
    webSockets: [streamRoute, transcription.route],
    hostEnvironments: config.ENVIRONMENT_HOSTS,
    logger,
    metrics,
  });

  return {
    server,
    routes,
    keyStore,
    agents,
    listen: async (listeners) => {
      const bound = await server.listen(listeners);
      for (const listener of bound) listenerPorts[listener.environment] = listener.port;
      try {
        metricsListener = await startMetricsListener(metrics, {
          host: config.METRICS_HOST,
          port: config.METRICS_PORT,
        });
        logger.info(
          { environment: 'metrics', host: metricsListener.host, port: metricsListener.port },
          'listening',
        );
      } catch (error) {
        // Metrics are for the operator; a taken port must not keep the API down.
        logger.error({ err: error, port: config.METRICS_PORT }, 'metrics listener not started');
      }
      return bound;
    },
    start: async () => {
      // Before listening: files of this process id are taken for a crashed earlier life's.
      await spool.prepare();
      await prepareUploadDirectory(uploadDir, logger);
      await heartbeat.start();
      if (config.RUN_JOBS_IN_PROCESS) {
        workers = startJobWorkers({ config, db, logger, instanceId });
      }
    },
    beginShutdown: () => {
      shuttingDown = true;
    },
    close: async () => {
      // Each step is logged at debug, so a shutdown that hangs names the step it hangs in.
      const step = async (name: string, work: () => unknown) => {
        logger.debug({ step: name }, 'closing');
        await work();
      };
      await step('server', () => server.close());
      await step('credential watch', () => credentials.close());
      await step('revoked session sweep', () => agentSide.close());
      // Queues the last batch of spooled audio while the queue is still open.
      await step('audio persistence', () => audioPersistence?.close());
      await step('metrics listener', () => metricsListener?.close());
      await step('key store', () => keyStore.close());
      await step('job workers', () => workers?.close());
      await step('audio queue', () => audioQueue?.close());
      await step('clone queue', () => voiceCloning.close());
      await step('heartbeat', () => heartbeat.stop());
      await step('neural engine', () => neural?.close());
      await step('native provider', () => nativeProvider.close());
      await step('upstream', () => upstream.close());
      await step('transcode pool', () => transcodePool?.close());
      await step('language models', () => llmCatalog.close());
      await step('realtime transcription', () => transcription.close());
    },
  };
}
