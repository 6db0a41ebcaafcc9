import { z } from 'zod';
import { ConfigError } from '../app/config.ts';
import type { Logger } from '../observability/logger.ts';
import { DeepgramSttProvider } from './deepgram/provider.ts';
import { defaultSidecarPython, defaultWhisperModelDir } from './embedded/paths.ts';
import { EmbeddedSttProvider } from './embedded/provider.ts';
import { SttError } from './errors.ts';
import { OpenAiTranscriptionProvider } from './openai/provider.ts';
import { STT_PROVIDER_NAMES, type SttProvider } from './provider.ts';

/**
 * Silence within an utterance after which the user counts as pausing and the embedded
 * engine starts transcribing: long enough to pass over the gaps between words, well short
 * of the VAD's end of speech (450 ms).
 */
export const DEFAULT_EARLY_START_PAUSE_MS = 200;

/** Whisper sizes scripts/install-whisper.sh installs. */
export const WHISPER_SIZES = ['tiny.en', 'base'] as const;

const positiveInt = z.coerce.number().int().positive();

/** The worker's speech-to-text variables (README, "Configuration"). */
export const sttConfigSchema = z.object({
  /** Which engine listens to users. */
  STT_PROVIDER: z.enum(STT_PROVIDER_NAMES).default('embedded'),
  /** Requests waiting for the embedded engine beyond the one it is transcribing. */
  STT_MAX_QUEUE: z.coerce.number().int().nonnegative().default(8),
  /**
   * The language users speak (ISO 639-1), or `auto` to detect it per utterance. Unset: the
   * Agent voice's language when it is known, else detected (src/stt/language.ts).
   */
  STT_LANGUAGE: z
    .string()
    .regex(/^(auto|[a-z]{2,3})$/, 'an ISO 639-1 code such as en, or auto')
    .optional(),
  /**
   * Silence within an utterance after which the embedded engine starts transcribing, while
   * the VAD waits for its 450 ms (docs/decisions.md, "early transcription"); 0 turns it off.
   */
  STT_EARLY_START_PAUSE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(400)
    .default(DEFAULT_EARLY_START_PAUSE_MS),
  /** Deadline of one transcription (plus the utterance's duration), embedded and openai. */
  STT_REQUEST_TIMEOUT_MS: positiveInt.default(20_000),

  /** Whisper size; chosen by measurement (docs/decisions.md, "Speech to text"). */
  WHISPER_MODEL: z.enum(WHISPER_SIZES).default('base'),
  /** Weights directory; default `${XDG_CACHE_HOME:-~/.cache}/awp/models/whisper-<size>`. */
  WHISPER_MODEL_DIR: z.string().min(1).optional(),
  WHISPER_BEAM_SIZE: positiveInt.max(10).default(1),
  /** CTranslate2 threads; 0 lets CTranslate2 pick. */
  WHISPER_THREADS: z.coerce.number().int().nonnegative().default(0),
  /**
   * Shortest encoder window in seconds: an utterance is encoded in its own length plus 2 s,
   * at least this (docs/decisions.md, "embedded encoder window"); 30 is Whisper's full window.
   */
  WHISPER_MIN_WINDOW_S: z.coerce.number().min(5).max(30).default(10),
  /** Python of the sidecar's venv; default the one scripts/install-whisper.sh creates. */
  WHISPER_PYTHON: z.string().min(1).optional(),
  WHISPER_START_TIMEOUT_MS: positiveInt.default(60_000),

  DEEPGRAM_API_KEY: z.string().optional(),
  /** http(s) base; the live socket uses the same host with ws(s). */
  DEEPGRAM_BASE_URL: z.url().default('https://api.deepgram.com'),
  DEEPGRAM_MODEL: z.string().min(1).default('nova-3'),
  /** Idle time after which a KeepAlive is sent (Deepgram closes after about 10 s). */
  DEEPGRAM_KEEPALIVE_MS: positiveInt.default(4_000),

  /** OpenAI, or a self-hosted server with `/v1/audio/transcriptions`. */
  STT_OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  STT_OPENAI_API_KEY: z.string().optional(),
  STT_OPENAI_MODEL: z.string().min(1).default('whisper-1'),
  /** `verbose_json` also returns the language and segment confidences (whisper-1, most servers). */
  STT_OPENAI_RESPONSE_FORMAT: z.enum(['json', 'verbose_json']).default('json'),
});

export type SttConfig = z.infer<typeof sttConfigSchema>;

/** Reads the speech-to-text variables; throws `ConfigError` naming each bad one. */
export function loadSttConfig(env: NodeJS.ProcessEnv = process.env): SttConfig {
  const input: Record<string, string> = {};
  for (const key of Object.keys(sttConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = sttConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/**
 * The configured engine. Throws `SttError` `not_configured` when its credential is
 * missing or the embedded engine is not installed.
 */
export function createSttProvider(
  config: SttConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): SttProvider {
  const log = logger.child({ component: 'stt', provider: config.STT_PROVIDER });
  switch (config.STT_PROVIDER) {
    case 'embedded':
      return new EmbeddedSttProvider({
        pythonPath: config.WHISPER_PYTHON ?? defaultSidecarPython(env),
        modelDir: config.WHISPER_MODEL_DIR ?? defaultWhisperModelDir(config.WHISPER_MODEL, env),
        beamSize: config.WHISPER_BEAM_SIZE,
        threads: config.WHISPER_THREADS,
        minWindowS: config.WHISPER_MIN_WINDOW_S,
        maxQueue: config.STT_MAX_QUEUE,
        requestTimeoutMs: config.STT_REQUEST_TIMEOUT_MS,
        startTimeoutMs: config.WHISPER_START_TIMEOUT_MS,
        logger: log,
      });
    case 'deepgram':
      if (config.DEEPGRAM_API_KEY === undefined) {
        throw new SttError('not_configured', 'STT_PROVIDER=deepgram needs DEEPGRAM_API_KEY');
      }
      return new DeepgramSttProvider({
        apiKey: config.DEEPGRAM_API_KEY,
        baseUrl: config.DEEPGRAM_BASE_URL,
        model: config.DEEPGRAM_MODEL,
        keepAliveMs: config.DEEPGRAM_KEEPALIVE_MS,
        logger: log,
      });
    case 'openai': {
      // A self-hosted Whisper server may need no key; OpenAI always does.
      const isOpenAi = new URL(config.STT_OPENAI_BASE_URL).hostname === 'api.openai.com';
      if (config.STT_OPENAI_API_KEY === undefined && isOpenAi) {
        throw new SttError('not_configured', 'STT_PROVIDER=openai needs STT_OPENAI_API_KEY');
      }
      return new OpenAiTranscriptionProvider({
        apiKey: config.STT_OPENAI_API_KEY ?? 'unused',
        baseUrl: config.STT_OPENAI_BASE_URL,
        model: config.STT_OPENAI_MODEL,
        responseFormat: config.STT_OPENAI_RESPONSE_FORMAT,
        timeoutMs: config.STT_REQUEST_TIMEOUT_MS,
        logger: log,
      });
    }
  }
}
