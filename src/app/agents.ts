import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { agentSessionRoutes } from '../agent-sessions/agent-session-routes.ts';
import { AgentSessions } from '../agent-sessions/agent-sessions.ts';
import { type LivekitRooms, livekitRoomsFromConfig } from '../agent-sessions/livekit-rooms.ts';
import { RevokedSessionSweep } from '../agent-sessions/revoked-session-sweep.ts';
import { SessionHandoverSweep } from '../agent-sessions/session-handover.ts';
import { sessionReadRoutes } from '../agent-sessions/session-read-routes.ts';
import type { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import { sessionTokenRoutes } from '../agent-sessions/session-token-routes.ts';
import { AgentSessionTokens } from '../agent-sessions/session-tokens.ts';
import { AgentStore } from '../agents/agent-store.ts';
import { Agents } from '../agents/agents.ts';
import { avatarRoutes } from '../agents/avatar-routes.ts';
import { DocumentStore } from '../agents/capabilities/documents/document-store.ts';
import { AgentDocuments } from '../agents/capabilities/documents/documents.ts';
import { documentRoutes } from '../agents/capabilities/documents/routes.ts';
import { MemoryStore } from '../agents/capabilities/memory/memory-store.ts';
import { memoryRoutes } from '../agents/capabilities/memory/routes.ts';
import { createAgentToolbox } from '../agents/capabilities/registry.ts';
import { cardRoutes } from '../agents/card-routes.ts';
import { agentRoutes } from '../agents/routes.ts';
import { applicationSessionRoutes } from '../application/routes.ts';
import { ApplicationSessions } from '../application/service.ts';
import type { ApiKeyStore } from '../auth/key-store.ts';
import type { LlmLedger } from '../billing/llm-ledger.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import { ConversationStore } from '../conversations/conversation-store.ts';
import { Conversations } from '../conversations/conversations.ts';
import { messageRoutes } from '../conversations/routes.ts';
import type { Database } from '../db/schema.ts';
import type { AnyRoute } from '../http/route.ts';
import { llmCatalogFromConfig } from '../llm/registry.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { translationRoutes } from '../translation/routes.ts';
import { PublicVoices } from '../voices/public-voices.ts';
import { VoiceStore } from '../voices/voice-store.ts';
import type { Config, Environment } from './config.ts';
import type { Domain } from './domain.ts';

/** The sweep that hands a lapsed Agent session to a new job; off when the bound is 0. */
function startHandoverSweep(
  config: Config,
  sessions: AgentSessions,
  rooms: LivekitRooms,
  logger: Logger,
): SessionHandoverSweep | undefined {
  if (config.AGENT_SESSION_HANDOVER_AFTER_MS <= 0) return undefined;
  const sweep = new SessionHandoverSweep({
    sessions,
    rooms,
    lapsedAfterMs: config.AGENT_SESSION_HANDOVER_AFTER_MS,
    maxDurationMs: config.AGENT_SESSION_MAX_DURATION_MS,
    prices: {
      sessionMillicreditsPerMinute:
        config.PRICE_AGENT_SESSION_CREDITS_PER_MINUTE * MILLICREDITS_PER_CREDIT,
      sttMillicreditsPerMinute: config.PRICE_STT_CREDITS_PER_MINUTE * MILLICREDITS_PER_CREDIT,
    },
    logger,
  });
  sweep.start();
  return sweep;
}

/**
 * The api's agent side: Agents, their text conversations, session tokens, live and
 * application sessions, the translation preview (on the same language models), and their
 * `/v1` routes. Closing its domain stops the revoked-session sweep, then the language-model
 * catalog it opened.
 */
export function createAgentSide(deps: {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  logger: Logger;
  signingSecret: string;
  keyStore: ApiKeyStore;
  llmLedger: LlmLedger;
  recordings: SessionRecordings;
  publicBaseUrls: Partial<Record<Environment, string>>;
  secretBox: SecretBox;
}) {
  const { config, db, publicBaseUrls } = deps;
  const llmCatalog = llmCatalogFromConfig(config, deps.logger);
  const agents = new Agents(new AgentStore(db), new PublicVoices(new VoiceStore(db)), llmCatalog);
  const agentSessionTokens = new AgentSessionTokens(db, {
    secret: deps.signingSecret,
    keys: deps.keyStore,
  });
  const toolbox = createAgentToolbox({
    config,
    db,
    secretBox: deps.secretBox,
    logger: deps.logger,
  });
  const conversations = new Conversations({
    agents,
    llm: llmCatalog,
    store: new ConversationStore(db),
    ledger: deps.llmLedger,
    toolbox,
    maxOutputTokens: config.MESSAGES_MAX_OUTPUT_TOKENS,
  });
  const agentSessions = new AgentSessions(db, {
    heartbeatTimeoutMs: config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
  });
  const livekitRooms = livekitRoomsFromConfig(config);
  // Without LiveKit no session runs, so none needs ending.
  const revokedSessions =
    livekitRooms &&
    new RevokedSessionSweep({
      db,
      redis: deps.redis,
      redisPrefix: config.REDIS_PREFIX,
      rooms: livekitRooms,
      sessions: agentSessions,
      intervalMs: config.REVOCATION_CHECK_INTERVAL_MS,
      logger: deps.logger,
    });
  const handovers =
    livekitRooms && startHandoverSweep(config, agentSessions, livekitRooms, deps.logger);
  const routes: AnyRoute[] = [
    ...agentRoutes(agents, deps.recordings),
    ...cardRoutes(agents),
    ...documentRoutes(new AgentDocuments(new DocumentStore(db))),
    ...sessionTokenRoutes(agents, agentSessionTokens, toolbox),
    ...messageRoutes(conversations),
    ...avatarRoutes(publicBaseUrls),
    ...translationRoutes({ catalog: llmCatalog, ledger: deps.llmLedger, config }),
    ...memoryRoutes(agents, new MemoryStore(db)),
    ...agentSessionRoutes({
      agents,
      tokens: agentSessionTokens,
      sessions: agentSessions,
      rooms: livekitRooms,
      maxDurationMs: config.AGENT_SESSION_MAX_DURATION_MS,
      maxSessionsPerWorkspace: config.AGENT_SESSIONS_MAX_CONCURRENT_PER_WORKSPACE,
      publicBaseUrls,
      recordings: deps.recordings,
    }),
    ...sessionReadRoutes(db, agentSessions),
    ...applicationSessionRoutes(
      new ApplicationSessions({
        db,
        agents,
        sessions: agentSessions,
        rooms: livekitRooms,
        maxDurationMs: config.AGENT_SESSION_MAX_DURATION_MS,
        maxSessionsPerWorkspace: config.AGENT_SESSIONS_MAX_CONCURRENT_PER_WORKSPACE,
      }),
      publicBaseUrls,
    ),
  ];
  return {
    llmCatalog,
    agents,
    agentSessionTokens,
    agentSessions,
    routes,
    domain: {
      name: 'agents',
      routes,
      close: async () => {
        await Promise.all([revokedSessions?.close(), handovers?.stop()]);
        await llmCatalog.close();
      },
    } satisfies Domain,
  };
}
