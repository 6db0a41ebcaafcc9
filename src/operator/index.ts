import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { AgentSessions } from '../agent-sessions/agent-sessions.ts';
import type { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import type { Agents } from '../agents/agents.ts';
import { DocumentStore } from '../agents/capabilities/documents/document-store.ts';
import { AgentDocuments } from '../agents/capabilities/documents/documents.ts';
import { AgentMemories } from '../agents/capabilities/memory/memories.ts';
import { MemoryStore } from '../agents/capabilities/memory/memory-store.ts';
import { WorkspaceSearchKeys } from '../agents/capabilities/websearch/workspace-search-keys.ts';
import type { Environment } from '../app/config.ts';
import { ApiKeys } from '../auth/api-keys.ts';
import type { ApiKeyStore } from '../auth/key-store.ts';
import type { Database } from '../db/schema.ts';
import type { AnyRoute } from '../http/route.ts';
import type { LlmCatalog } from '../llm/registry.ts';
import { Playground } from '../playground/playground.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { AudioStore } from '../storage/audio-store.ts';
import { StreamingSessionReads } from '../streaming-sessions/reads.ts';
import { StreamingSessionStore } from '../streaming-sessions/store.ts';
import { TranscriptionSessionReads } from '../transcription/session-reads.ts';
import type { OneShotSynthesis } from '../tts/oneshot.ts';
import type { UpstreamTimeouts } from '../tts/providers/upstream/timeouts.ts';
import type { UpstreamProviderKind } from '../tts/providers/upstream-registry.ts';
import type { ConfiguredVendor } from '../tts/providers/vendor-descriptor.ts';
import type { VoiceCatalog } from '../voices/catalog.ts';
import type { VoiceCloning } from '../voices/cloning/service.ts';
import { VoiceImports, vendorCatalogs } from '../voices/imports.ts';
import type { ProviderAccounts } from '../voices/provider-accounts.ts';
import type { VoiceStore } from '../voices/voice-store.ts';
import { WebhookDeliveries } from '../webhooks/deliveries.ts';
import { WebhookEndpoints } from '../webhooks/endpoints.ts';
import { MemberAdmin } from '../workspaces/member-admin.ts';
import { OperatorGuard } from './guard.ts';
import { OperatorSessions } from './operator-sessions.ts';
import { accountRoutes } from './routes/account-routes.ts';
import { agentCardRoutes } from './routes/agent-card-routes.ts';
import { agentRoutes } from './routes/agent-routes.ts';
import { agentSessionRoutes } from './routes/agent-session-routes.ts';
import { cloneRoutes } from './routes/clone-routes.ts';
import { documentRoutes } from './routes/document-routes.ts';
import { generationRoutes } from './routes/generation-routes.ts';
import { keyRoutes } from './routes/key-routes.ts';
import { memberRoutes } from './routes/member-routes.ts';
import { memoryRoutes } from './routes/memory-routes.ts';
import { operatorSessionRoutes } from './routes/operator-session-routes.ts';
import { streamingSessionRoutes } from './routes/streaming-session-routes.ts';
import { transcriptionSessionRoutes } from './routes/transcription-session-routes.ts';
import { usageRoutes } from './routes/usage-routes.ts';
import { voiceRoutes } from './routes/voice-routes.ts';
import { webSearchKeyRoutes } from './routes/web-search-key-routes.ts';
import { webhookRoutes } from './routes/webhook-routes.ts';
import { SignInThrottle } from './sign-in-throttle.ts';

export { OperatorGuard } from './guard.ts';
export { OperatorSessions } from './operator-sessions.ts';

export interface OperatorApiOptions {
  db: Kysely<Database>;
  /** Cloning (samples, clone jobs, History); its `routes` member holds the route settings. */
  cloning: VoiceCloning;
  limiter: RateLimiter;
  keyStore: ApiKeyStore;
  store: VoiceStore;
  /** The Playground synthesizes through the `/v1/tts` one-shot path and this catalog. */
  synthesis: OneShotSynthesis;
  catalog: VoiceCatalog;
  /** Where Playground generations keep their audio. */
  audioStore: AudioStore;
  accounts: ProviderAccounts;
  /** The deployment's secrets key, which seals provider keys and webhook signing secrets. */
  secretBox: SecretBox;
  /** Managed Agents of the dashboard's Agents page. */
  agents: Agents;
  /** The language models this deployment offers (the Agent write schemas list them). */
  llm: LlmCatalog;
  /** Agent sessions of the Agents › Sessions page. */
  agentSessions: AgentSessions;
  /** Recordings of Agent sessions (a session's page plays and deletes them). */
  recordings: SessionRecordings;
  /** The registered vendors with this deployment's settings (catalog import). */
  vendors: readonly ConfiguredVendor<UpstreamProviderKind>[];
  upstreamTimeouts?: Partial<UpstreamTimeouts>;
  sessionTtlMs: number;
  /** Redis of the sign-in throttle (failure counts, known addresses), under `redisPrefix`. */
  redis: Redis;
  redisPrefix: string;
  signIn: {
    attemptsPerMinute: number;
    emailFailures: number;
    failureWindowMs: number;
    knownAddressTtlMs: number;
    /** `TRUSTED_PROXY_HEADER`. */
    trustedProxyHeader: string | undefined;
  };
  /** Whether the session cookie carries `Secure`, per environment (from configuration). */
  secureCookies: Record<Environment, boolean>;
  /** Whether `/demo` is served (DEMO_PAGE): the Agents pages link to it. */
  demoPage: boolean;
}

/**
 * The operator API under `/operator/api/` (for the dashboard): its routes, and the guard
 * other operator routes (cloning) use to require a signed-in member with a role.
 */
export function createOperatorApi(options: OperatorApiOptions): {
  routes: AnyRoute[];
  guard: OperatorGuard;
} {
  const throttle = new SignInThrottle(
    options.redis,
    options.limiter,
    options.redisPrefix,
    options.signIn,
  );
  const sessions = new OperatorSessions(options.db, options.limiter, throttle, {
    ttlMs: options.sessionTtlMs,
    attemptsPerMinute: options.signIn.attemptsPerMinute,
  });
  const guard = new OperatorGuard(sessions, { secureCookies: options.secureCookies });
  const routeSettings = options.cloning.routes;
  const imports = new VoiceImports({
    accounts: options.accounts,
    store: options.store,
    routes: routeSettings,
    catalogFor: vendorCatalogs(options.vendors, options.upstreamTimeouts),
  });
  const apiKeys = new ApiKeys(options.db);
  return {
    guard,
    routes: [
      ...operatorSessionRoutes(guard, sessions, {
        demoPage: options.demoPage,
        trustedProxyHeader: options.signIn.trustedProxyHeader,
      }),
      ...keyRoutes(guard, apiKeys, options.keyStore),
      ...memberRoutes(guard, new MemberAdmin(options.db), {
        apiKeys,
        store: options.keyStore,
      }),
      ...accountRoutes(guard, options.accounts),
      ...webSearchKeyRoutes(guard, new WorkspaceSearchKeys(options.db, options.secretBox)),
      ...usageRoutes(guard, options.db),
      ...webhookRoutes(
        guard,
        options.db,
        new WebhookEndpoints(options.db, options.secretBox),
        new WebhookDeliveries(options.db),
      ),
      ...voiceRoutes(guard, {
        store: options.store,
        routes: routeSettings,
        imports,
      }),
      ...cloneRoutes(guard, options.cloning),
      ...agentRoutes(guard, options.agents, options.llm),
      ...agentCardRoutes(guard, options.agents),
      ...agentSessionRoutes(guard, options.db, options.agentSessions, options.recordings),
      ...documentRoutes(guard, new AgentDocuments(new DocumentStore(options.db))),
      ...memoryRoutes(guard, new AgentMemories(options.agents, new MemoryStore(options.db))),
      ...transcriptionSessionRoutes(guard, new TranscriptionSessionReads(options.db)),
      ...streamingSessionRoutes(
        guard,
        new StreamingSessionReads(options.db, new StreamingSessionStore(options.db)),
      ),
      ...generationRoutes(
        guard,
        new Playground({ ...options, voices: options.store, audio: options.audioStore }),
        options.catalog,
      ),
    ],
  };
}
