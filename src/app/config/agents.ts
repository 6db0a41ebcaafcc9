import { z } from 'zod';
import { bool, modelList } from './fields.ts';

/**
 * The agent side's environment variables: language models, Agent sessions over LiveKit,
 * realtime transcription, and the capabilities of managed Agents. Part of `configSchema`
 * (src/app/config.ts).
 */
export const agentConfigShape = {
  /** OpenAI-compatible Chat Completions origin (OpenAI, vLLM, llama.cpp server, Ollama). */
  OPENAI_BASE_URL: z.url().optional(),
  /** Key of the OpenAI-compatible server; never logged. */
  OPENAI_API_KEY: z.string().optional(),
  /** `llm_model` values offered on the OpenAI-compatible provider, comma separated. */
  OPENAI_MODELS: modelList('gpt-4.1-mini,gpt-4.1,o4-mini'),
  /** Anthropic Messages API origin. */
  ANTHROPIC_BASE_URL: z.url().optional(),
  /** Anthropic key; never logged. */
  ANTHROPIC_API_KEY: z.string().optional(),
  /** `llm_model` values offered on the Anthropic provider, comma separated. */
  ANTHROPIC_MODELS: modelList('claude-sonnet-4-6,claude-haiku-4-5'),
  /** Offer the embedded local model (`llm_provider` `local`) when its weights are installed. */
  LOCAL_LLM: bool.default(true),
  /** GGUF file of the embedded model (installed by the setup script). */
  LOCAL_LLM_MODEL_PATH: z.string().min(1).optional(),
  /** Language-model call: longest wait from sending the request to the first streamed token. */
  LLM_FIRST_TOKEN_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Language-model call: longest silence between streamed events after the first token. */
  LLM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** CPU threads of the embedded model; more than one spins and starves a busy machine. */
  LOCAL_LLM_THREADS: z.coerce.number().int().positive().default(1),
  /** Language-model prices, credits per 1,000,000 tokens (input/output), per provider. */
  PRICE_OPENAI_CREDITS_PER_1M_INPUT_TOKENS: z.coerce.number().nonnegative().default(1000),
  PRICE_OPENAI_CREDITS_PER_1M_OUTPUT_TOKENS: z.coerce.number().nonnegative().default(4000),
  PRICE_ANTHROPIC_CREDITS_PER_1M_INPUT_TOKENS: z.coerce.number().nonnegative().default(3000),
  PRICE_ANTHROPIC_CREDITS_PER_1M_OUTPUT_TOKENS: z.coerce.number().nonnegative().default(15000),
  PRICE_LOCAL_CREDITS_PER_1M_INPUT_TOKENS: z.coerce.number().nonnegative().default(100),
  PRICE_LOCAL_CREDITS_PER_1M_OUTPUT_TOKENS: z.coerce.number().nonnegative().default(100),
  /**
   * Language model of the translation preview (`POST /v1/realtime-translation-preview`):
   * provider and model as the registry lists them; default the first configured model.
   */
  TRANSLATION_LLM_PROVIDER: z.enum(['openai', 'anthropic', 'local']).optional(),
  TRANSLATION_LLM_MODEL: z.string().min(1).optional(),
  /** Longest translation, in tokens (also bounds the credit reserved for it). */
  TRANSLATION_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(16).max(32_000).default(2048),
  /** Longest answer of a text conversation turn, in tokens (also bounds its credit reservation). */
  MESSAGES_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(16).max(32_000).default(1024),

  /** LiveKit server of Agent sessions (`ws://` or `wss://`); unset: session starts answer 503. */
  LIVEKIT_URL: z
    .string()
    .regex(/^(wss?|https?):\/\//, 'must be a ws://, wss://, http:// or https:// URL')
    .optional(),
  LIVEKIT_API_KEY: z.string().min(1).optional(),
  /** Never logged. */
  LIVEKIT_API_SECRET: z.string().min(1).optional(),
  /** The LiveKit URL browsers get in session starts. Default LIVEKIT_URL. */
  LIVEKIT_PUBLIC_URL: z
    .string()
    .regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL')
    .optional(),
  /** Name the agent worker registers under; sessions dispatch it explicitly. */
  AGENT_NAME: z.string().min(1).max(100).default('awp-agent'),
  /** Longest Agent session; the worker ends it then. */
  AGENT_SESSION_MAX_DURATION_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  /**
   * How long a session start waits for an agent worker to take the session's job; none
   * within it (every worker full, or none registered) answers `503 provider_unavailable`
   * and undoes the start. 0: the start does not wait (a room no worker may join). At most
   * 8 s: a start is answered within 10 s of its arrival (WAITING_ANSWER_LIMIT_MS), and its
   * other steps and its undo need the rest; the wait also ends 8 s after the request
   * arrived, however long the steps before it took.
   */
  AGENT_SESSION_WORKER_WAIT_MS: z.coerce.number().int().nonnegative().max(8000).default(7000),
  /**
   * A session whose worker has not reported for this long is reported `failed`
   * (`worker_lost`); the worker reports every few seconds.
   */
  AGENT_SESSION_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /**
   * A running session whose job has not renewed its lease for this long is handed to a new
   * job in the same room, which resumes the conversation (0: never; the session is then
   * failed after the heartbeat timeout). The job renews about three times within it.
   */
  AGENT_SESSION_HANDOVER_AFTER_MS: z.coerce.number().int().nonnegative().default(3000),
  /**
   * Agent sessions (managed and application) running at once per workspace, both
   * environments together; a start beyond it answers `429 rate_limited` (0 = unlimited).
   */
  AGENT_SESSIONS_MAX_CONCURRENT_PER_WORKSPACE: z.coerce.number().int().nonnegative().default(50),
  /** Price of Agent session time, in credits per minute (LLM, TTS and STT are priced apart). */
  PRICE_AGENT_SESSION_CREDITS_PER_MINUTE: z.coerce.number().nonnegative().default(5),
  /**
   * Price of speech to text, in credits per minute: of user speech in Agent sessions, of
   * audio received in realtime transcription sessions.
   */
  PRICE_STT_CREDITS_PER_MINUTE: z.coerce.number().nonnegative().default(6),
  /** Realtime transcription: longest wait for a client frame (audio or event) before `stop`. */
  TRANSCRIPTION_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** Realtime transcription: longest session, from `start`. */
  TRANSCRIPTION_MAX_SESSION_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
  /** Realtime transcription: concurrent sessions per workspace (0 = unlimited), across api processes. */
  TRANSCRIPTION_MAX_CONCURRENT_PER_WORKSPACE: z.coerce.number().int().nonnegative().default(100),

  /**
   * Search engine of the `web_search_enabled` capability: `brave` (Brave Search API),
   * `searxng` (a self-hosted SearXNG with its JSON format on) or `none`. Default: `brave`
   * when BRAVE_SEARCH_API_KEY is set, else `searxng` when SEARXNG_URL is set, else `none`.
   */
  WEB_SEARCH_PROVIDER: z.enum(['brave', 'searxng', 'none']).optional(),
  /** Brave Search API key (`X-Subscription-Token`); never logged. */
  BRAVE_SEARCH_API_KEY: z.string().min(1).optional(),
  BRAVE_SEARCH_API_BASE: z.url().default('https://api.search.brave.com'),
  /** Base URL of a SearXNG instance (`/search?format=json` must be enabled). */
  SEARXNG_URL: z.url().optional(),
  /** Results one web search gives the model. */
  WEB_SEARCH_MAX_RESULTS: z.coerce.number().int().min(1).max(20).default(5),
  /** Longest wait for the search engine's answer. */
  WEB_SEARCH_TIMEOUT_MS: z.coerce.number().int().positive().default(8000),
  /**
   * Price of one web search with the deployment's engine, in millicredits, charged on the
   * turn that made it (5,000 = 5 credits = USD 0.005, Brave's list price). A workspace that
   * brings its own search key is not charged.
   */
  WEB_SEARCH_PRICE_MILLICREDITS: z.coerce.number().int().nonnegative().default(5000),
  /**
   * Google OAuth 2.0 client (a "Web application" client of a Google Cloud project) through
   * which end users connect their Google Calendar. Unset: the calendar routes answer 503
   * `provider_auth_missing` and Agents' calendar tools say the calendar is unavailable.
   */
  GOOGLE_OAUTH_CLIENT_ID: z.string().min(1).optional(),
  /** Secret of that client; never logged. */
  GOOGLE_OAUTH_CLIENT_SECRET: z.string().min(1).optional(),
  /**
   * Redirect URI registered with the client for the production and development
   * environments. Default: the environment's public base URL (PUBLIC_BASE_URL,
   * PUBLIC_DEV_BASE_URL, else the request's Host) + `/v1/google-calendar/oauth/callback`.
   */
  GOOGLE_OAUTH_REDIRECT_URI: z.url().optional(),
  GOOGLE_OAUTH_DEV_REDIRECT_URI: z.url().optional(),
  /** Google's authorization endpoint (the consent page end users are sent to). */
  GOOGLE_OAUTH_AUTHORIZATION_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  /** Google's token endpoint (code exchange and refresh). */
  GOOGLE_OAUTH_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),
  /** Google's token revocation endpoint. */
  GOOGLE_OAUTH_REVOKE_URL: z.url().default('https://oauth2.googleapis.com/revoke'),
  /** Root of Google's APIs; the Calendar API lives under `calendar/v3/` there. */
  GOOGLE_CALENDAR_API_URL: z.url().default('https://www.googleapis.com/'),
  /** Longest wait for one answer of Google (token endpoint, revocation, Calendar API). */
  GOOGLE_API_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
};
