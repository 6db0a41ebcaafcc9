/**
 * Everything the agent worker (`worker/`) may know of the api, in one module: the worker
 * imports `src/` only through this file (dependency-cruiser checks it, `npm run deps`),
 * apart from the speech-to-text seam in `src/stt/`, which both processes listen through.
 * Names, limits and message shapes shared with the api and the SDKs come from
 * `@awp/protocol`.
 *
 * The worker runs one Agent session per job. It may know:
 * - the shared configuration and logging (the api's variables: database, models, prices);
 * - the session it runs, as records (`AgentSessionRecord` and its parts) and through
 *   {@link WorkerApi}: state, heartbeat, transcript, usage and latency, the agent-speech
 *   credential, the language-model catalog, the Agent's capabilities, the voice's sample
 *   languages and a place for the recording;
 * - the LiveKit identities the api gives a session's participants;
 * - the language-model seam's types (the worker's LLM adapter speaks them);
 * - the pricing module: the worker measures usage (tokens, seconds of speech and of
 *   session) and prices it with the same functions the api uses.
 *
 * Everything else (the database, the secrets box, the audio store's implementations,
 * billing's ledgers and balances, the HTTP layer) stays behind {@link WorkerApi} or out of
 * the worker's reach, so the api can change how it keeps them without touching the worker.
 */

export type { LatencyStats, TurnLatencySummary } from '../agent-sessions/agent-session-records.ts';
export type {
  AgentSessionRecord,
  ApplicationSession,
  ContextUpdate,
  SessionContext,
  StoredSessionUsage,
} from '../agent-sessions/agent-sessions.ts';
export { agentSessionLedgerId } from '../agent-sessions/agent-sessions.ts';
export { userIdentity } from '../agent-sessions/livekit-rooms.ts';
export type { ToolBilling } from '../agents/capabilities/agent-tool.ts';
export type { PreparedTools } from '../agents/capabilities/toolbox.ts';
export type { CharacterCard } from '../agents/character-card.ts';
export { type Config, ConfigError, loadConfig } from '../app/config.ts';
export type { ApplicationTool } from '../application/types.ts';
export {
  agentSessionCostMillicredits,
  llmCostMillicredits,
  MILLICREDITS_PER_CREDIT,
  type TokenPrices,
  type TokenUsage,
} from '../billing/pricing.ts';
export type {
  LlmMessage,
  LlmProvider,
  LlmToolDefinition,
  LlmUsage,
  ThinkingLevel,
} from '../llm/provider.ts';
export { createLogger, type Logger } from '../observability/logger.ts';
export { WorkerApi, type WorkerSessionStore } from './worker-api.ts';
