import { type Job, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Kysely } from 'kysely';
import type { Config } from '../app/config.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { openAudioStores } from '../storage/stores.ts';
import { VoiceClonerRegistry } from '../tts/providers/cloning/registry.ts';
import { UpstreamProviderError } from '../tts/providers/upstream/status.ts';
import { configureVendors, VENDORS } from '../tts/providers/vendors.ts';
import { CloneRunner } from '../voices/cloning/runner.ts';
import { SampleDecoder } from '../voices/cloning/sample-decoder.ts';
import { SampleStore } from '../voices/cloning/sample-store.ts';
import { VoiceCloning } from '../voices/cloning/service.ts';
import type { CloneJobQueue } from '../voices/cloning/types.ts';
import { ProviderAccounts } from '../voices/provider-accounts.ts';
import { bullPrefix, createQueue, QUEUE_NAMES, workerConnectionOptions } from './queues.ts';

/** A clone job carries only the attempt id; the attempt row holds the rest. */
export interface VoiceCloningJobData {
  attemptId: string;
}

const REMOVE_ON_COMPLETE = { age: 7 * 24 * 3600, count: 10_000 };
const REMOVE_ON_FAIL = { age: 30 * 24 * 3600, count: 10_000 };

/**
 * Producer: one job per clone attempt, `jobId` = attempt id (adding it twice is a no-op),
 * retried with exponential backoff on retryable vendor failures.
 */
export class VoiceCloningQueue implements CloneJobQueue {
  constructor(
    private readonly queue: Queue<VoiceCloningJobData>,
    private readonly options: { attempts: number; backoffDelayMs: number },
  ) {}

  async enqueue(attemptId: string): Promise<void> {
    await this.queue.add(
      QUEUE_NAMES.voiceCloning,
      { attemptId },
      {
        jobId: attemptId,
        attempts: this.options.attempts,
        backoff: { type: 'exponential', delay: this.options.backoffDelayMs },
        removeOnComplete: REMOVE_ON_COMPLETE,
        removeOnFail: REMOVE_ON_FAIL,
      },
    );
  }
}

export interface VoiceCloningWorkerOptions {
  connectionUrl: string;
  prefix: string;
  runner: CloneRunner;
  logger: Logger;
  /**
   * Lock of a running job. A job whose process died is found stalled and run again after
   * about this long; the runner's reconciliation keeps that from cloning twice.
   */
  lockDurationMs: number;
  /** Jobs at once in this process. Default 2 (clones upload files; the vendor does the work). */
  concurrency?: number;
}

/**
 * Consumer: runs attempts through the {@link CloneRunner}. A rejected clone fails the job
 * with `UnrecoverableError` (no retry); a retryable failure is thrown for BullMQ's backoff
 * until the last try, which the runner records as the route's failure.
 */
export function createVoiceCloningWorker(
  options: VoiceCloningWorkerOptions,
): Worker<VoiceCloningJobData, { outcome: string }> {
  const { runner, logger } = options;
  const processor = async (
    job: Job<VoiceCloningJobData>,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<{ outcome: string }> => {
    const finalTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const outcome = await runner.run(job.data.attemptId, {
      finalTry,
      signal: signal ?? new AbortController().signal,
    });
    if (outcome === 'failed') {
      throw new UnrecoverableError(`clone attempt ${job.data.attemptId} was rejected`);
    }
    return { outcome };
  };
  const worker = new Worker<VoiceCloningJobData, { outcome: string }>(
    QUEUE_NAMES.voiceCloning,
    processor,
    {
      connection: workerConnectionOptions(options.connectionUrl),
      prefix: bullPrefix(options.prefix),
      concurrency: options.concurrency ?? 2,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.lockDurationMs,
      // A process killed twice mid-clone still gets its job run again.
      maxStalledCount: 3,
    },
  );
  worker.on('completed', (job, result) => {
    logger.info({ attempt: job.data.attemptId, outcome: result.outcome }, 'clone job finished');
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    logger.warn(
      { attempt: job.data.attemptId, err: error, attempts_made: job.attemptsMade },
      'clone job failed',
    );
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'voice cloning worker error'));
  return worker;
}

/**
 * The cloning service on a deployment's configuration (operator tool, api): samples on the
 * local disk under DATA_DIR, attempts queued on Redis. `close()` ends the queue connection.
 */
export function openVoiceCloning(deps: { config: Config; db: Kysely<Database>; logger: Logger }): {
  cloning: VoiceCloning;
  close(): Promise<void>;
} {
  const { config } = deps;
  const queue = createQueue<VoiceCloningJobData>(QUEUE_NAMES.voiceCloning, {
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    logger: deps.logger,
  });
  const cloning = new VoiceCloning(
    deps.db,
    new SampleStore(openAudioStores(config).samples),
    new VoiceCloningQueue(queue, {
      attempts: config.CLONE_JOB_ATTEMPTS,
      backoffDelayMs: config.CLONE_JOB_BACKOFF_MS,
    }),
    sampleDecoder(config),
  );
  return { cloning, close: () => queue.close() };
}

/** The bounds of decoding recordings in this process (SAMPLE_DECODE_*). */
function sampleDecoder(config: Config): SampleDecoder {
  return new SampleDecoder({
    concurrency: config.SAMPLE_DECODE_CONCURRENCY,
    timeoutMs: config.SAMPLE_DECODE_TIMEOUT_MS,
  });
}

/** The clone worker of a jobs process (or of the api in single-node mode). */
export function startVoiceCloningWorker(deps: {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
}): { close(): Promise<void> } {
  const { config, db, logger } = deps;
  const registry = new VoiceClonerRegistry({
    vendors: configureVendors(config, VENDORS),
    timeouts: {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      // Uploads and training take longer than the first audio byte of synthesis.
      firstByteTimeoutMs: Math.max(config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS, 120_000),
      idleTimeoutMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    },
  });
  const accounts = new ProviderAccounts(
    db,
    SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR }),
  );
  const runner = new CloneRunner(
    db,
    new SampleStore(openAudioStores(config).samples),
    async (provider, accountId) => {
      if (accountId === null) return registry.cloner(provider, null);
      const account = await accounts.credential(accountId);
      if (!account) {
        throw new UpstreamProviderError('auth_missing', `provider account ${accountId} is gone`, {
          provider,
        });
      }
      return registry.cloner(provider, account);
    },
    logger,
    sampleDecoder(config),
  );
  const worker = createVoiceCloningWorker({
    connectionUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    runner,
    logger,
    lockDurationMs: config.CLONE_JOB_LOCK_MS,
  });
  return {
    close: async () => {
      await worker.close();
      registry.close();
    },
  };
}
