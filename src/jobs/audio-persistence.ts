import { type Job, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Environment } from '../config.ts';
import type { Logger } from '../observability/logger.ts';
import { createRedis } from '../redis/client.ts';
import { type AudioStore, audioObjectKey, InvalidObjectKeyError } from '../storage/audio-store.ts';
import { bullPrefix, QUEUE_NAMES, workerConnectionOptions } from './queues.ts';

/**
 * What a job carries. The audio itself waits in Redis under {@link audioRedisKey}, so job
 * data stays small and a worker on any machine can read the bytes.
 */
export interface AudioPersistenceJobData {
  requestId: string;
  workspaceId: string;
  environment: Environment;
  format: string;
  contentType: string;
  extension: string;
  /** Fixed at enqueue time so every retry writes the same object. */
  objectKey: string;
}

/** One finished synthesis request whose audio should be kept. */
export interface AudioPersistenceRequest {
  requestId: string;
  workspaceId: string;
  environment: Environment;
  /** The output format of the request, e.g. `mp3_44100_128`. */
  format: string;
  contentType: string;
  /** File extension without the dot, e.g. `mp3`. */
  extension: string;
  audio: Buffer;
}

export interface AudioPersistenceOptions {
  /** `REDIS_PREFIX`; the bytes go to `${prefix}:audio:${requestId}`. */
  prefix: string;
  /** Larger audio is not persisted. */
  maxBytes: number;
  /** How long the bytes wait in Redis for a worker; must outlast the retries' backoff. */
  ttlSeconds: number;
  logger: Logger;
  /** Job attempts, the first included. Default 5. */
  attempts?: number;
  /** First retry delay; each further retry doubles it. Default 1000. */
  backoffDelayMs?: number;
  /** Longest `enqueue` waits on Redis before giving up. Default 2000. */
  enqueueTimeoutMs?: number;
}

/** The Redis key holding a request's audio until its job has stored it. */
export function audioRedisKey(prefix: string, requestId: string): string {
  return `${prefix}:audio:${requestId}`;
}

/** Finished jobs kept for deduplication (same `jobId`) and inspection, bounded. */
const REMOVE_ON_COMPLETE = { age: 24 * 3600, count: 10_000 };
const REMOVE_ON_FAIL = { age: 7 * 24 * 3600, count: 10_000 };

/**
 * Producer side of best-effort audio persistence, used by the api after the response (or
 * the WebSocket `finish`) has gone out. `enqueue` never throws and never waits on Redis for
 * longer than `enqueueTimeoutMs`: a lost recording must not affect the request.
 *
 * @example
 * ```ts
 * const persistence = new AudioPersistence(queue, redis, {
 *   prefix: config.REDIS_PREFIX, maxBytes: 20 * 1024 * 1024, ttlSeconds: 3600, logger,
 * });
 * void persistence.enqueue({ requestId, workspaceId, environment, format,
 *   contentType: 'audio/mpeg', extension: 'mp3', audio });
 * ```
 */
export class AudioPersistence {
  private readonly attempts: number;
  private readonly backoffDelayMs: number;
  private readonly enqueueTimeoutMs: number;

  constructor(
    private readonly queue: Queue<AudioPersistenceJobData>,
    private readonly redis: Redis,
    private readonly options: AudioPersistenceOptions,
  ) {
    this.attempts = options.attempts ?? 5;
    this.backoffDelayMs = options.backoffDelayMs ?? 1_000;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? 2_000;
  }

  /**
   * Parks the audio in Redis and adds a job with `jobId = requestId`. Enqueuing a request id
   * again while its bytes wait, or after its job finished, does nothing. Resolves once the
   * job is added, skipped, failed (logged) or `enqueueTimeoutMs` passed (logged).
   */
  async enqueue(request: AudioPersistenceRequest): Promise<void> {
    const { logger, maxBytes } = this.options;
    const { requestId } = request;
    if (request.audio.byteLength > maxBytes) {
      logger.info(
        { request_id: requestId, size_bytes: request.audio.byteLength, max_bytes: maxBytes },
        'audio persistence skipped: audio larger than the limit',
      );
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.enqueueTimeoutMs);
    });
    const attempt = this.add(request).then(
      () => 'done' as const,
      (error: unknown) => {
        logger.warn({ err: error, request_id: requestId }, 'audio persistence enqueue failed');
        return 'done' as const;
      },
    );
    const outcome = await Promise.race([attempt, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      logger.warn(
        { request_id: requestId, timeout_ms: this.enqueueTimeoutMs },
        'audio persistence enqueue timed out',
      );
    }
  }

  private async add(request: AudioPersistenceRequest): Promise<void> {
    const { prefix, ttlSeconds, logger } = this.options;
    const { requestId, audio } = request;
    const data: AudioPersistenceJobData = {
      requestId,
      workspaceId: request.workspaceId,
      environment: request.environment,
      format: request.format,
      contentType: request.contentType,
      extension: request.extension,
      objectKey: audioObjectKey({
        workspaceId: request.workspaceId,
        requestId,
        extension: request.extension,
        createdAt: new Date(),
      }),
    };
    const key = audioRedisKey(prefix, requestId);
    // NX: bytes already waiting mean this request id is already queued.
    const parked = await this.redis.set(key, audio, 'EX', ttlSeconds, 'NX');
    if (parked === null) {
      logger.debug({ request_id: requestId }, 'audio persistence already queued');
      return;
    }
    try {
      // A finished job with this id makes `add` a no-op; drop the bytes rather than leave
      // them in Redis until they expire.
      const state = await this.queue.getJobState(requestId);
      if (state === 'completed' || state === 'failed') {
        await this.redis.del(key);
        logger.debug({ request_id: requestId, state }, 'audio persistence already done');
        return;
      }
      await this.queue.add(QUEUE_NAMES.audioPersistence, data, {
        jobId: requestId,
        attempts: this.attempts,
        backoff: { type: 'exponential', delay: this.backoffDelayMs },
        removeOnComplete: REMOVE_ON_COMPLETE,
        removeOnFail: REMOVE_ON_FAIL,
      });
    } catch (error) {
      // Without a job the bytes would only block a later enqueue of the same id (NX).
      await this.redis.del(key).catch(() => {});
      throw error;
    }
  }
}

export interface AudioPersistenceWorkerOptions {
  connectionUrl: string;
  /** `REDIS_PREFIX`, the same as the producer's. */
  prefix: string;
  store: AudioStore;
  /** Records the location (e.g. on the request's ledger row). Must be idempotent: a retry after it succeeded calls it again. */
  onPersisted: (requestId: string, location: string) => Promise<void>;
  logger: Logger;
  /** Jobs processed at once by this worker. Default 4. */
  concurrency?: number;
}

/**
 * The consumer: reads the parked bytes, writes them through the {@link AudioStore}, calls
 * `onPersisted`, then deletes the bytes. Expired bytes fail the job at once
 * (`UnrecoverableError`); store and Redis errors are retried with the job's backoff.
 * `worker.close()` waits for running jobs, then also closes the byte-reading connection.
 */
export function createAudioPersistenceWorker(
  options: AudioPersistenceWorkerOptions,
): Worker<AudioPersistenceJobData, { location: string }> {
  const { connectionUrl, prefix, store, onPersisted, logger } = options;
  // Its own fail-fast connection: BullMQ's client does not expose `getBuffer`.
  const redis = createRedis(connectionUrl);

  const processor = async (job: Job<AudioPersistenceJobData>): Promise<{ location: string }> => {
    const { requestId, objectKey, contentType } = job.data;
    const key = audioRedisKey(prefix, requestId);
    const audio = await redis.getBuffer(key);
    if (audio === null) {
      throw new UnrecoverableError('audio expired from Redis before it was persisted');
    }
    let location: string;
    try {
      ({ location } = await store.put(objectKey, audio, contentType));
    } catch (error) {
      if (error instanceof InvalidObjectKeyError) throw new UnrecoverableError(error.message);
      throw error;
    }
    await onPersisted(requestId, location);
    // Persisted and recorded; if this fails the key's expiry removes the bytes.
    await redis.del(key).catch((error: unknown) => {
      logger.warn({ err: error, request_id: requestId }, 'deleting persisted audio bytes failed');
    });
    return { location };
  };

  const worker = new Worker<AudioPersistenceJobData, { location: string }>(
    QUEUE_NAMES.audioPersistence,
    processor,
    {
      connection: workerConnectionOptions(connectionUrl),
      prefix: bullPrefix(prefix),
      concurrency: options.concurrency ?? 4,
    },
  );
  worker.on('completed', (job, result) => {
    logger.debug({ request_id: job.data.requestId, location: result.location }, 'audio persisted');
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final =
      error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    const fields = { err: error, request_id: job.data.requestId, attempts_made: job.attemptsMade };
    if (final) logger.error(fields, 'audio persistence failed');
    else logger.warn(fields, 'audio persistence attempt failed; retrying');
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'audio persistence worker error'));
  worker.once('closed', () => redis.disconnect());
  return worker;
}
