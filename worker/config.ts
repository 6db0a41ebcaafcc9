import { APPLICATION_LIMITS } from '@awp/protocol';
import { z } from 'zod';
import { ConfigError } from '../src/worker-boundary/index.ts';

/** The agent worker's own variables; the shared ones (database, LLM, prices) are the api's. */
export const workerConfigSchema = z.object({
  LIVEKIT_URL: z.string().regex(/^(wss?|https?):\/\//, 'must be a ws:// or wss:// URL'),
  LIVEKIT_API_KEY: z.string().min(1),
  /** Never logged. */
  LIVEKIT_API_SECRET: z.string().min(1),
  /** The name sessions dispatch (explicit dispatch only). */
  AGENT_NAME: z.string().min(1).max(100).default('awp-agent'),
  /** The api's production listener; agent speech goes through its `/v1/tts/stream`. */
  AWP_API_URL: z.url().default('http://127.0.0.1:8080'),
  /** The api's development listener (sessions of development Agents). */
  AWP_API_DEV_URL: z.url().default('http://127.0.0.1:8081'),
  /** A job (one session) using more memory than this is killed; 0 = no limit. */
  WORKER_JOB_MEMORY_LIMIT_MB: z.coerce.number().int().nonnegative().default(1500),
  /** Prewarmed job processes kept ready (each loads the VAD and starts an STT engine). */
  WORKER_IDLE_PROCESSES: z.coerce.number().int().positive().default(1),
  /**
   * Longest a new job process may take to start (load the VAD, start its STT engine) before
   * the worker gives up on it. LiveKit's 10 s is too short for a machine short of CPU.
   */
  WORKER_INITIALIZE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Sessions one worker runs at once; it takes no more until one ends. */
  WORKER_MAX_SESSIONS: z.coerce.number().int().positive().default(4),
  /**
   * The worker also counts as full while the machine's CPUs are at least this busy (0 to 1);
   * unset: only its session slots make it full.
   */
  WORKER_LOAD_THRESHOLD: z.coerce.number().gt(0).max(1).optional(),
  /**
   * On SIGTERM the worker takes no new sessions and lets its conversations run this long;
   * those still running then are handed to another job (or, with hand-over off, ended).
   */
  WORKER_DRAIN_GRACE_MS: z.coerce.number().int().nonnegative().default(20_000),
  /** Health and worker-info HTTP port (127.0.0.1). */
  WORKER_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(8082),
  /**
   * A managed Agent's tool call still running this long makes the Agent say a short
   * filler ("One moment, let me check that."), once per turn; 0: never.
   */
  AGENT_TOOL_FILLER_MS: z.coerce.number().int().nonnegative().default(1000),
  /**
   * Silence after the user's words that ends their speech, and so their turn (Silero VAD).
   * Shorter answers sooner but cuts users who pause mid-sentence: docs/decisions/agents.md,
   * "Speculative answers", has the measurements.
   */
  AGENT_VAD_MIN_SILENCE_MS: z.coerce.number().int().min(100).max(15_000).default(450),
  /**
   * Ask the Agent's model at the user's pause, with the transcript Whisper made of it, and
   * keep that answer when the turn ends without more speech (LiveKit's preemptive
   * generation; docs/decisions/agents.md, "Speculative answers"). A discarded answer is never
   * spoken nor charged. Off by default: with the embedded Whisper on a small CPU its
   * transcript of the pause comes after Silero's end of speech, so it buys nothing there.
   * Application sessions never use it: their backend decides on a turn before any model.
   */
  AGENT_PREEMPTIVE_GENERATION: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * Application sessions: how long a callback may wait for its result (or a tool for its
   * first progress) before it is cancelled. The spec's 60 s; tests shorten it.
   */
  APPLICATION_REQUEST_DEADLINE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(APPLICATION_LIMITS.firstResponseMs),
});

export type WorkerConfig = z.infer<typeof workerConfigSchema>;

/** Reads the worker variables; throws `ConfigError` naming each bad one. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const input: Record<string, string> = {};
  for (const key of Object.keys(workerConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = workerConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}
