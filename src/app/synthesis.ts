import { availableParallelism } from 'node:os';
import type { OutputFormat } from '../../media/formats.ts';
import { inThreadTranscoder, type TranscoderOptions } from '../../media/transcode.ts';
import { passPcmThroughInThread } from '../../media/transcoder-placement.ts';
import { TranscodePool } from '../../media/worker/transcode-pool.ts';
import { MILLICREDITS_PER_CREDIT, type RoutePricing } from '../billing/pricing.ts';
import type { AudioPersistenceJobData } from '../jobs/audio-persistence-job.ts';
import { AudioPersistence } from '../jobs/audio-persistence-producer.ts';
import { createQueue, QUEUE_NAMES } from '../jobs/queues.ts';
import { spoolQueueName } from '../jobs/spool-queue.ts';
import { audioSpoolDir } from '../jobs/workers.ts';
import { queueWaitRecorder } from '../observability/domain-metrics.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { audioFileExtension } from '../storage/audio-store.ts';
import { capFfmpegEncoders } from '../tts/encoder-cap.ts';
import type { AudioPersister } from '../tts/ports.ts';
import { createKokoroEngine, defaultKokoroDir } from '../tts/providers/kokoro/index.ts';
import { defaultEngineHelperPath, NativeProvider } from '../tts/providers/native/index.ts';
import {
  type UpstreamProviderKind,
  UpstreamProviderRegistry,
} from '../tts/providers/upstream-registry.ts';
import type { ConfiguredVendor } from '../tts/providers/vendor-descriptor.ts';
import { configureVendors, VENDORS } from '../tts/providers/vendors.ts';
import type { Config } from './config.ts';
import type { Domain } from './domain.ts';

/** The price of each vendor's routes: its configured credits, passed through (pass_through). */
export function vendorPricing<K extends string>(
  vendors: readonly ConfiguredVendor<K>[],
): Record<K, RoutePricing> {
  return Object.fromEntries(
    vendors.map(({ descriptor, settings }) => [
      descriptor.kind,
      {
        millicreditsPer1kChars: settings.creditsPer1kChars * MILLICREDITS_PER_CREDIT,
        passThrough: true,
      },
    ]),
  ) as Record<K, RoutePricing>;
}

/**
 * The speech engines of this process: the native engine, the neural (Kokoro) engine when
 * NATIVE_NEURAL_VOICES is on, and the upstream vendor registry. Each owns processes or
 * connections the api closes on shutdown.
 */
export function createSpeechProviders(
  config: Config,
  vendors: readonly ConfiguredVendor<UpstreamProviderKind>[],
  metrics: Metrics,
  logger: Logger,
) {
  const providerQueue = (pool: string) => ({
    maxWaiting: config.PROVIDER_QUEUE_MAX_WAITING,
    maxWaitMs: config.PROVIDER_QUEUE_MAX_WAIT_MS,
    onWaited: queueWaitRecorder(metrics, pool),
  });
  const engineHelper = config.NATIVE_ENGINE_PERSISTENT
    ? (config.NATIVE_ENGINE_HELPER ?? defaultEngineHelperPath())
    : undefined;
  if (config.NATIVE_ENGINE_PERSISTENT && engineHelper === undefined) {
    logger.warn(
      'long-lived espeak-ng engine not built (scripts/setup.sh); one process per request',
    );
  }
  const nativeProvider = new NativeProvider({
    launcher: config.NATIVE_ENGINE_LAUNCHER,
    ...(engineHelper ? { engineHelper } : {}),
    queue: providerQueue('native'),
    ...(config.NATIVE_MAX_PROCESSES ? { maxProcesses: config.NATIVE_MAX_PROCESSES } : {}),
  });
  const neural = config.NATIVE_NEURAL_VOICES
    ? createKokoroEngine({
        dir: config.KOKORO_DIR ?? defaultKokoroDir(),
        phonemizer: (lines, language, signal) => nativeProvider.phonemize(lines, language, signal),
        ...(config.KOKORO_THREADS ? { threadsPerInference: config.KOKORO_THREADS } : {}),
        concurrentInferences: config.KOKORO_CONCURRENCY,
        maxWaitMs: config.KOKORO_MAX_WAIT_MS,
        warn: (message) => logger.warn(message),
      })
    : null;
  const upstream = new UpstreamProviderRegistry({
    vendors,
    maxConcurrentPerAccount: config.UPSTREAM_MAX_CONCURRENT_PER_ACCOUNT,
    queue: providerQueue('upstream'),
    timeouts: {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    },
    logger,
  });
  return { nativeProvider, neural, upstream };
}

/**
 * The speech engines as a domain of the api: they serve no route of their own, and closing
 * stops the neural engine, the native engine's processes and the upstream connections.
 */
export function speechProvidersDomain(config: Config, metrics: Metrics, logger: Logger) {
  const vendors = configureVendors(config, VENDORS);
  const providers = createSpeechProviders(config, vendors, metrics, logger);
  const domain: Domain = {
    name: 'speech providers',
    close: async () => {
      await providers.neural?.close();
      await providers.nativeProvider.close();
      await providers.upstream.close();
    },
  };
  return { domain, vendors, ...providers };
}

/**
 * Where synthesized audio is stored when AUDIO_PERSISTENCE is on: files in the persistence
 * spool, queued in batches the jobs process drains. With it off the persister is disabled
 * and no queue is opened. `audioPersistence.close()` queues the last batch: call it at
 * shutdown before `audioQueue.close()`.
 */
export function createAudioPersister(config: Config, metrics: Metrics, logger: Logger) {
  const audioQueue = config.AUDIO_PERSISTENCE
    ? createQueue<AudioPersistenceJobData>(spoolQueueName(audioSpoolDir(config)), {
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        logger,
      })
    : undefined;
  const audioPersistence = audioQueue
    ? new AudioPersistence(audioQueue, {
        spoolDir: audioSpoolDir(config),
        maxBytes: config.AUDIO_PERSISTENCE_MAX_BYTES,
        minFreeBytes: config.AUDIO_SPOOL_MIN_FREE_BYTES,
        logger,
      })
    : undefined;
  if (audioQueue) {
    // Batches, not requests: each job holds up to 64 requests.
    metrics.watchQueueDepth(QUEUE_NAMES.audioPersistence, () =>
      audioQueue.getJobCountByTypes('waiting', 'delayed', 'prioritized'),
    );
  }
  const persister: AudioPersister = {
    enabled: audioPersistence !== undefined,
    enqueue: async (input) => {
      if (!audioPersistence) return;
      await audioPersistence.enqueue({
        requestId: input.requestId,
        workspaceId: input.workspaceId,
        environment: input.environment,
        contentType: input.contentType,
        extension: audioFileExtension(input.format),
        audio: input.audio,
      });
    },
  };
  return { audioQueue, audioPersistence, persister };
}

/**
 * Where resampling and encoding run: a pool of worker threads (TRANSCODE_THREADS, default
 * one per core but one), or this thread when set to 0; PCM already at its format's rate
 * passes through in this thread either way; ffmpeg encoders capped at FFMPEG_MAX_ENCODERS.
 */
export function createTranscoders(config: Config) {
  const transcodeThreads = config.TRANSCODE_THREADS ?? Math.max(1, availableParallelism() - 1);
  const transcodePool =
    transcodeThreads > 0 ? new TranscodePool({ threads: transcodeThreads }) : undefined;
  const transcoders = capFfmpegEncoders(
    transcodePool
      ? passPcmThroughInThread((format: OutputFormat, options: TranscoderOptions) =>
          transcodePool.create(format, options),
        )
      : inThreadTranscoder,
    config.FFMPEG_MAX_ENCODERS,
  );
  return { transcodePool, transcoders };
}
