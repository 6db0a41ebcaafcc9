import { z } from 'zod';
import { derivedSecret } from '../secrets/secret-box.ts';
import { vendorConfigShape } from '../tts/providers/vendors.ts';
import { agentConfigShape } from './config/agents.ts';
import { bool, hostMap, port } from './config/fields.ts';
import { storageConfigShape } from './config/storage.ts';

export { ENVIRONMENTS, type Environment } from './config/environments.ts';

/** Every environment variable the api and jobs processes read, in one schema. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Listener of the production environment. 0 picks a free port (tests). */
  PORT: port.default(8080),
  /** Listener of the development environment. 0 picks a free port (tests). */
  DEV_PORT: port.default(8081),
  /** Host names mapped to environments; a mapped Host header wins over the listener. */
  ENVIRONMENT_HOSTS: hostMap,
  /** Public base URLs, used in responses that carry URLs (stream tokens). */
  PUBLIC_BASE_URL: z.url().optional(),
  PUBLIC_DEV_BASE_URL: z.url().optional(),
  /**
   * `websocket_url` of stream tokens (production, development), never taken from the
   * request's Host. Default: from PUBLIC_BASE_URL / PUBLIC_DEV_BASE_URL, else
   * `ws://localhost:<listener port>`.
   */
  PUBLIC_WS_URL: z
    .string()
    .regex(/^wss?:\/\/[^/]/, 'must be a ws:// or wss:// URL')
    .optional(),
  PUBLIC_DEV_WS_URL: z
    .string()
    .regex(/^wss?:\/\/[^/]/, 'must be a ws:// or wss:// URL')
    .optional(),
  /** Internal listener of `/metrics` (Prometheus); loopback unless an operator opens it. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Port of the metrics listener; 0 picks a free one (tests). */
  METRICS_PORT: port.default(9464),
  /** The jobs process's `/healthz` and `/readyz` listener (the api serves both on PORT). */
  JOBS_PROBE_HOST: z.string().min(1).default('127.0.0.1'),
  /** Port of the jobs process's probe listener; 0 picks a free one (tests). */
  JOBS_PROBE_PORT: port.default(8083),
  DATA_DIR: z.string().min(1).default('./data'),
  /** A postgres:// URL selects PostgreSQL; unset means SQLite under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** PostgreSQL: longest wait for a new connection. */
  PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** PostgreSQL `statement_timeout` of every connection. */
  PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** PostgreSQL `idle_in_transaction_session_timeout`: a stalled transaction frees its locks. */
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** SQLite busy timeout; the wait blocks the event loop, hence the cap. */
  SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().nonnegative().max(1000).default(250),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key this deployment writes (lets deployments share a Redis). */
  REDIS_PREFIX: z.string().min(1).default('awp'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Largest JSON request body accepted by default, in bytes. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  /**
   * Bytes of request bodies one api process reads at once (each request reserves its
   * declared length after it authenticated); beyond it a request is answered 503
   * `service_unavailable` (retryable) before its body is read.
   */
  BODY_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  /** Folder of uploads received to disk (voice recordings, cards). Default DATA_DIR/uploads. */
  UPLOAD_SPOOL_DIR: z.string().min(1).optional(),
  /** Voice recordings decoded (ffprobe, ffmpeg) at once per process; more wait their turn. */
  SAMPLE_DECODE_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Longest one ffmpeg decode of a voice recording may run before it is killed. */
  SAMPLE_DECODE_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** How long SIGTERM waits for in-flight requests before closing. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(10_000),
  /** How long an api process may serve a cached key lookup; bounds revocation delay. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().nonnegative().max(1000).default(500),
  /**
   * How often each api process reads again the keys its open WebSockets and live Agent
   * sessions were started with; a revoked key or a suspended workspace ends them within
   * this plus KEY_CACHE_TTL_MS.
   */
  REVOCATION_CHECK_INTERVAL_MS: z.coerce.number().int().positive().max(5000).default(1000),
  /** How often last-used times of API keys are written to the database. */
  KEY_LAST_USED_FLUSH_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * HMAC secret of short-lived tokens. Default: derived from the deployment's secrets key
   * (SECRETS_KEY or DATA_DIR/secrets.key), so the api and worker processes agree.
   */
  TOKEN_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Identity of this process in the ledger. A process restarted with the same id closes
   * the requests its previous life left open at once. Default: host name and ports.
   */
  INSTANCE_ID: z.string().min(1).max(200).optional(),
  /** Price of the native model, in credits per 1,000 characters. */
  PRICE_NATIVE_CREDITS_PER_1K_CHARS: z.coerce.number().nonnegative().default(10),
  /** Price of the neural native voices (Kokoro), in credits per 1,000 characters. */
  PRICE_NEURAL_CREDITS_PER_1K_CHARS: z.coerce.number().nonnegative().default(30),
  /** Synthesis requests per minute per API key (0 = unlimited); bursts of a sixth of it. */
  TTS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().nonnegative().default(600),
  /**
   * Operator API: sign-in attempts per minute of one client address at one email (ten
   * times it per client address, all emails together).
   */
  OPERATOR_SIGNIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /**
   * Operator API: failed sign-ins at one email, from every address together, within
   * OPERATOR_SIGNIN_FAILURE_WINDOW_MINUTES; past it only addresses that signed in to that
   * email before may try until the window ends.
   */
  OPERATOR_SIGNIN_EMAIL_FAILURES: z.coerce.number().int().positive().default(50),
  OPERATOR_SIGNIN_FAILURE_WINDOW_MINUTES: z.coerce.number().int().positive().default(15),
  /**
   * Header a trusted reverse proxy puts the client's address in (`x-forwarded-for`,
   * `x-real-ip`, ...); its last entry counts. Unset: the connection's peer address.
   */
  TRUSTED_PROXY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
    .optional(),
  /** Operator API: lifetime of a session from sign-in, in hours. */
  OPERATOR_SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  /** Operator API: send the session cookie without `Secure` (plain-HTTP deployments only). */
  OPERATOR_INSECURE_COOKIES: bool.default(false),

  /** Synthesis requests per minute per workspace, all its keys together (0 = unlimited). */
  TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().nonnegative().default(3000),
  /** One-shot syntheses running at once in this process; more answer 503 (retryable). */
  ONESHOT_MAX_CONCURRENT: z.coerce.number().int().positive().default(32),
  /**
   * One-shot audio up to this many bytes is held in memory until complete; a longer answer
   * is written to a file under ONESHOT_SPOOL_DIR and sent from there.
   */
  ONESHOT_MEMORY_MAX_BYTES: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(4 * 1024 * 1024),
  /** Folder of spooled one-shot audio; stale files are removed at start. Default DATA_DIR/spool. */
  ONESHOT_SPOOL_DIR: z.string().min(1).optional(),
  /** Requests that may wait for an espeak-ng process or an upstream slot, per pool. */
  PROVIDER_QUEUE_MAX_WAITING: z.coerce.number().int().nonnegative().default(256),
  /** Longest wait for an espeak-ng process or an upstream slot; then 503 (retryable). */
  PROVIDER_QUEUE_MAX_WAIT_MS: z.coerce.number().int().positive().default(10_000),
  /** Most espeak-ng processes at once. Default: twice the CPU count. */
  NATIVE_MAX_PROCESSES: z.coerce.number().int().positive().optional(),
  /**
   * Start espeak-ng through a small launcher process (true) or from the api process
   * (false). Process starts from a large process block its event loop for milliseconds.
   */
  NATIVE_ENGINE_LAUNCHER: bool.default(true),
  /**
   * Synthesize in long-lived engine processes over libespeak-ng (true), or one espeak-ng
   * process per request (false). Needs the engine built by scripts/setup.sh; without it
   * the api logs a warning and uses one process per request.
   */
  NATIVE_ENGINE_PERSISTENT: bool.default(true),
  /** The compiled long-lived engine. Default: `.cache/native/awp-espeak-engine` in the checkout. */
  NATIVE_ENGINE_HELPER: z.string().min(1).optional(),
  /** Offer the espeak-ng ("lite") native voices. */
  NATIVE_LITE_VOICES: bool.default(true),
  /** Offer the Kokoro-82M neural native voices (when installed: scripts/install-kokoro.sh). */
  NATIVE_NEURAL_VOICES: bool.default(true),
  /** Folder of the installed Kokoro files. Default `${XDG_CACHE_HOME:-~/.cache}/awp/kokoro`. */
  KOKORO_DIR: z.string().min(1).optional(),
  /** onnxruntime threads per neural inference. Default: the CPU count. */
  KOKORO_THREADS: z.coerce.number().int().positive().optional(),
  /** Neural inferences at once (one worker thread and model copy, ~550 MB, each). */
  KOKORO_CONCURRENCY: z.coerce.number().int().positive().default(1),
  /** A neural request that would wait longer than this for the model fails at once (503). */
  KOKORO_MAX_WAIT_MS: z.coerce.number().int().positive().default(2000),
  /**
   * Worker threads that resample and encode audio, off the event loop (0 = encode on the
   * event loop). Default: one per CPU beyond the first, at least one.
   */
  TRANSCODE_THREADS: z.coerce.number().int().nonnegative().optional(),
  /** ffmpeg (AAC) encoders at once per api process; more AAC requests answer 503 (retryable). */
  FFMPEG_MAX_ENCODERS: z.coerce.number().int().positive().default(16),
  /** libopus complexity (0-10) of `opus_48000_64`; chosen by the benchmark. */
  OPUS_COMPLEXITY: z.coerce.number().int().min(0).max(10).optional(),
  /** Each upstream vendor's origin, deployment key and price (its descriptor's `configShape`). */
  ...vendorConfigShape,
  /** Most concurrent upstream synthesis requests per provider account (FIFO queue beyond). */
  UPSTREAM_MAX_CONCURRENT_PER_ACCOUNT: z.coerce.number().int().positive().default(5),
  /** Upstream request: longest wait for the response headers. */
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Upstream request: longest silence between audio chunks. */
  UPSTREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** Upstream request: longest wait for a new TCP connection. */
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * Key that seals stored provider credentials (32+ characters). Required when processes on
   * several machines share a database; unset, a key is generated into DATA_DIR/secrets.key.
   */
  SECRETS_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Store synthesized audio after each request (best effort, through a job). */
  AUDIO_PERSISTENCE: bool.default(true),
  /**
   * Days an Agent session's recording is kept after the session ended; the jobs process
   * deletes older ones hourly. 0 keeps recordings until they are deleted.
   */
  RECORDING_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /**
   * Waits between a webhook delivery's attempts, in milliseconds, comma-separated: a
   * delivery is tried once and then once after each wait (by default 8 attempts over about
   * 27 hours), then marked failed.
   */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be comma-separated milliseconds')
    .default('5000,300000,1800000,7200000,18000000,36000000,36000000')
    .transform((value) => value.split(',').map((part) => Number(part.trim()))),
  /**
   * Days a webhook delivery that ended (delivered or failed) is kept, with the body it sent
   * (which may hold a transcript); the jobs process deletes older ones hourly.
   */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** A webhook attempt's longest wait for the receiver's response, connection included. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** How often the jobs process looks for webhook deliveries that are due. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  /**
   * Deliver webhooks to loopback, private, link-local and other non-public addresses. Off by
   * default, so a workspace cannot make the service call into its own network.
   */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  /** Audio larger than this is not stored. */
  AUDIO_PERSISTENCE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * Folder where the api leaves finished audio for the jobs process to store; every api and
   * jobs process must see the same folder. Default DATA_DIR/persistence-spool.
   */
  AUDIO_SPOOL_DIR: z.string().min(1).optional(),
  /**
   * The api writes no spool file that would leave the spool's file system with less free
   * space than this (the disk also holds the SQLite ledger); 0 turns the floor off.
   */
  AUDIO_SPOOL_MIN_FREE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(1024 * 1024 * 1024),
  /** Run the job workers inside the api process (single node). */
  RUN_JOBS_IN_PROCESS: bool.default(true),
  /** Tries of one voice clone job (the first included) on retryable vendor failures. */
  CLONE_JOB_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** First retry delay of a clone job; each further retry doubles it. */
  CLONE_JOB_BACKOFF_MS: z.coerce.number().int().positive().default(5_000),
  /** Lock of a running clone job: a job whose process died is picked up again after this. */
  CLONE_JOB_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  /**
   * Origins a browser may open `/v1/tts/stream` from with a stream token: exact origins
   * (`https://app.example.com`), `https://*.example.com` for subdomains, or `*` for any.
   * Default: local development origins only.
   */
  STREAM_ALLOWED_ORIGINS: z
    .string()
    .default('http://localhost,http://127.0.0.1,https://localhost')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
  /** Longest wait for a client event before `stop` (before `start` too). */
  STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** Concurrent streaming requests per workspace (0 = unlimited), across api processes. */
  STREAM_MAX_CONCURRENT_PER_WORKSPACE: z.coerce.number().int().nonnegative().default(500),
  ...agentConfigShape,
  ...storageConfigShape,
  /** Create a development workspace with two keys on first start and print them. */
  BOOTSTRAP_WORKSPACE: bool.default(false),
  /** Serve the demo page and its dev-only token endpoint under /demo (development, loopback only). */
  DEMO_PAGE: bool.default(false),
});

export type Config = z.infer<typeof configSchema>;

/** Thrown when the environment does not satisfy the schema; names each bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The HMAC secret of short-lived tokens (stream tokens, Agent session tokens, the worker's
 * internal stream tokens): `TOKEN_SIGNING_SECRET` when set, else derived from the
 * deployment's secrets key so the api and worker processes agree.
 */
export function tokenSigningSecret(config: Config): string {
  return (
    config.TOKEN_SIGNING_SECRET ??
    derivedSecret({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR }, TOKEN_SIGNING_LABEL)
  );
}

const TOKEN_SIGNING_LABEL = 'awp/token-signing/v1';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}
