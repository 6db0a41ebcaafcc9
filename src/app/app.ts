import { hostname } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import type { Agents } from '../agents/agents.ts';
import { googleCalendarRoutes } from '../agents/capabilities/calendar/routes.ts';
import { googleCalendarFromConfig } from '../agents/capabilities/calendar/service.ts';
import type { ApiKeyStore } from '../auth/key-store.ts';
import type { Database } from '../db/schema.ts';
import { demoRoutes } from '../demo/routes.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';
import type { AnyRoute } from '../http/route.ts';
import { prepareUploadDirectory } from '../http/upload-directory.ts';
import type { Listener, UwsHttpServer } from '../http/uws/server.ts';
import { modelRoutes } from '../models/routes.ts';
import { limiterOutage } from '../observability/domain-metrics.ts';
import type { Logger } from '../observability/logger.ts';
import { Metrics } from '../observability/metrics.ts';
import type { MetricsListener } from '../observability/metrics-listener.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { openAudioStores } from '../storage/stores.ts';
import { streamingSessionRoutes } from '../streaming-sessions/routes.ts';
import { loadSttConfig, type SttConfig } from '../stt/config.ts';
import { systemRoutes } from '../system/routes.ts';
import { OriginAllowlist } from '../tts/stream/origins.ts';
import { WEBHOOK_EVENT_SCHEMAS } from '../webhooks/event-schemas.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { createAgentSide } from './agents.ts';
import { authDomain } from './auth.ts';
import { billingDomain } from './billing.ts';
import type { Config } from './config.ts';
import { closeDomains, type Domain, startDomains } from './domain.ts';
import { jobWorkersDomain } from './jobs.ts';
import { operatorDomain } from './operator.ts';
import { publicUrls } from './public-urls.ts';
import { listenWithMetrics, mountDomains } from './server.ts';
import { speechProvidersDomain } from './synthesis.ts';
import { createTranscriptionSide } from './transcription.ts';
import { synthesisDomain } from './tts.ts';
import { voicesDomain } from './voices.ts';

/**
 * `info.version` of the OpenAPI document: a breaking change needs a new major or minor
 * (docs/api-changelog.md has the policy and one entry per version).
 */
export const API_VERSION = '1.10.0';

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

/**
 * Composes the api from its domains (src/app/*.ts) and mounts their routes on the uWS
 * server; nothing listens yet. Starting prepares the upload folder, then starts the
 * domains; closing stops the server and the metrics listener, then closes the domains.
 */
export function createApi(deps: ApiDependencies): Api {
  const { config, logger } = deps;
  const parts = createParts(deps);
  const state: ApiState = { shuttingDown: false };
  const domains = listDomains(parts, state);
  const uploadDir = config.UPLOAD_SPOOL_DIR ?? path.resolve(config.DATA_DIR, 'uploads');
  const server = mountDomains(domains, {
    ...parts,
    authenticator: parts.auth.authenticator,
    uploadDir,
  });
  let metricsListener: MetricsListener | undefined;
  return {
    server,
    routes: apiRoutes(domains),
    keyStore: parts.auth.keyStore,
    agents: parts.agents.agents,
    listen: async (listeners) => {
      const listening = await listenWithMetrics(server, listeners, {
        ...parts,
        listenerPorts: parts.urls.listenerPorts,
      });
      metricsListener = listening.metricsListener;
      return listening.bound;
    },
    start: async () => {
      await prepareUploadDirectory(uploadDir, logger);
      await startDomains(domains);
    },
    beginShutdown: () => {
      state.shuttingDown = true;
    },
    close: async () => {
      await closeDomains(
        [
          { name: 'server', close: async () => server.close() },
          { name: 'metrics listener', close: async () => metricsListener?.close() },
          ...domains,
        ],
        logger,
      );
    },
  };
}

type Parts = ReturnType<typeof createParts>;

/** What the system routes read of the api: shutdown begun, the OpenAPI document once built. */
interface ApiState {
  shuttingDown: boolean;
  openApi?: object;
}

/**
 * The parts the domains are made of, created in the order they need each other (which is
 * not the order they are registered in: billing's ledgers are used by synthesis and
 * agents, but its heartbeat closes after them).
 */
function createParts(deps: ApiDependencies) {
  const { config, db, redis, logger } = deps;
  const instanceId = config.INSTANCE_ID ?? `api@${hostname()}:${config.PORT || process.pid}`;
  const metrics = new Metrics();
  const secretBox = SecretBox.fromConfig({
    secretsKey: config.SECRETS_KEY,
    dataDir: config.DATA_DIR,
  });
  const origins = new OriginAllowlist(config.STREAM_ALLOWED_ORIGINS);
  const urls = publicUrls(config);
  // Synthesized audio and session recordings: DATA_DIR/audio or the bucket, shared with the worker.
  const audioStore = openAudioStores(config).audio;
  const recordings = new SessionRecordings(db, audioStore);
  const sttConfig = deps.sttConfig ?? loadSttConfig();
  const use = { config, db, redis, logger, metrics, origins, secretBox };

  const billing = billingDomain({ db, instanceId, metrics, logger });
  const auth = authDomain(use);
  const speech = speechProvidersDomain(config, metrics, logger);
  const voices = voicesDomain({ ...use, speech });
  const synthesis = synthesisDomain({
    ...use,
    ...auth,
    catalog: voices.catalog,
    ledger: billing.ledger,
    websocketUrl: urls.websocketUrl,
  });
  const agents = createAgentSide({
    ...use,
    signingSecret: auth.signingSecret,
    keyStore: auth.keyStore,
    llmLedger: billing.llmLedger,
    recordings,
    publicBaseUrls: urls.publicBaseUrls,
  });
  const transcription = createTranscriptionSide({
    ...use,
    authenticator: auth.authenticator,
    credentials: auth.credentials,
    sttConfig,
    slotOutage: limiterOutage(metrics, logger, 'transcription_slots'),
    store: billing.transcriptionStore,
    tokens: auth.streamTokens,
    ttsWebsocketUrl: urls.websocketUrl,
  });
  return {
    ...use,
    instanceId,
    urls,
    audioStore,
    recordings,
    sttConfig,
    billing,
    auth,
    speech,
    voices,
    synthesis,
    agents,
    transcription,
  };
}

/**
 * The api's domains in the order they are registered: their `/v1` routes (and so the
 * OpenAPI document) follow it, they start in it, and at shutdown they close in it.
 */
function listDomains(parts: Parts, state: ApiState): Domain[] {
  const { config, db, redis, logger, secretBox, urls, sttConfig, audioStore, recordings } = parts;
  const { instanceId } = parts;
  const { billing, auth, speech, voices, synthesis, agents, transcription } = parts;
  const domains: Domain[] = [
    {
      name: 'system',
      routes: systemRoutes({
        db,
        redis,
        openApiDocument: () => (state.openApi ??= apiDocument(apiRoutes(domains))),
        shuttingDown: () => state.shuttingDown,
      }),
    },
    auth.domain,
    voices.domain,
    synthesis.domain,
    agents.domain,
    { name: 'models', routes: modelRoutes(agents.llmCatalog, sttConfig) },
    transcription.domain,
    { name: 'webhooks', routes: webhookRoutes(db, secretBox) },
    { name: 'streaming sessions', routes: streamingSessionRoutes(db) },
    {
      name: 'google calendar',
      routes: googleCalendarRoutes(
        googleCalendarFromConfig({ config, db, secretBox, logger }),
        urls.publicBaseUrls,
      ),
    },
    // Not part of /v1 (no OpenAPI entry); answers only when DEMO_PAGE is on.
    {
      name: 'demo',
      pages: demoRoutes({
        enabled: config.DEMO_PAGE,
        db,
        agents: agents.agents,
        tokens: agents.agentSessionTokens,
      }),
    },
    operatorDomain({
      config,
      db,
      redis,
      secretBox,
      keyStore: auth.keyStore,
      cloning: voices.cloning,
      store: voices.store,
      catalog: voices.catalog,
      accounts: voices.accounts,
      synthesis: synthesis.oneShot,
      limiter: synthesis.rateLimiter,
      audioStore,
      agents: agents.agents,
      llm: agents.llmCatalog,
      agentSessions: agents.agentSessions,
      recordings,
      vendors: speech.vendors,
    }),
    billing.domain,
    jobWorkersDomain({ config, db, logger, instanceId }),
    speech.domain,
  ];
  return domains;
}

/** The `/v1` routes of the domains, in their order: what the OpenAPI document describes. */
function apiRoutes(domains: readonly Domain[]): AnyRoute[] {
  return domains.flatMap((domain) => domain.routes ?? []);
}
