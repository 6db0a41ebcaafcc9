import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { PersistedAudio } from '../billing/ledger.ts';
import type { Logger } from '../observability/logger.ts';
import {
  type AudioStore,
  InvalidObjectKeyError,
  MissingSourceFileError,
} from '../storage/audio-store.ts';
import type { AudioPersistenceEntry, AudioPersistenceJobData } from './audio-persistence-job.ts';
import { InvalidSpoolFileError, spoolFilePath } from './persistence-spool.ts';
import { bullPrefix, workerConnectionOptions } from './queues.ts';
import { spoolQueueName } from './spool-queue.ts';

export interface AudioPersistenceWorkerOptions {
  connectionUrl: string;
  /** `REDIS_PREFIX`, the same as the producer's. */
  prefix: string;
  /** `AUDIO_SPOOL_DIR` of this process: the folder the api writes to, as mounted here. */
  spoolDir: string;
  store: AudioStore;
  /**
   * Records where each request's audio went (the ledger rows), all at once. Must be
   * idempotent: a retry after it succeeded calls it again with the same entries.
   */
  onPersisted: (stored: PersistedAudio[]) => Promise<void>;
  logger: Logger;
  /** Batches processed at once by this worker. Default 4. */
  concurrency?: number;
}

/** What a processed batch reports (BullMQ keeps it as the job's return value). */
export interface AudioPersistenceResult {
  stored: number;
  skipped: number;
}

/**
 * The consumer: for each request of a batch, moves its spool file into the
 * {@link AudioStore} at the entry's object key, then records every stored request with one
 * `onPersisted` call. Every step is idempotent, so a batch can be retried (or queued twice,
 * by the producer and a sweeper) safely: a file already moved, whose object exists, counts
 * as stored. A request whose file and object are both missing is skipped with a warning,
 * and so is an entry that names no valid file or key; the others are stored. A store or
 * ledger failure fails the batch, which BullMQ retries with the job's backoff.
 *
 * @example
 * ```ts
 * const worker = createAudioPersistenceWorker({ connectionUrl, prefix, spoolDir, store,
 *   onPersisted: (stored) => ledger.markAudioPersistedMany(stored), logger });
 * await worker.close();
 * ```
 */
export function createAudioPersistenceWorker(
  options: AudioPersistenceWorkerOptions,
): Worker<AudioPersistenceJobData, AudioPersistenceResult> {
  const { connectionUrl, prefix, logger } = options;

  const processor = async (job: Job<AudioPersistenceJobData>): Promise<AudioPersistenceResult> => {
    if (!Array.isArray(job.data.requests)) {
      // A job of an earlier version (one request, its audio parked in Redis): nothing here
      // can store it, so it fails once rather than after every retry.
      throw new UnrecoverableError('not a batch of spooled requests');
    }
    const stored: PersistedAudio[] = [];
    for (const entry of job.data.requests) {
      const location = await storeEntry(entry, options);
      if (location !== null) stored.push({ requestId: entry.requestId, location });
    }
    await options.onPersisted(stored);
    return { stored: stored.length, skipped: job.data.requests.length - stored.length };
  };

  const worker = new Worker<AudioPersistenceJobData, AudioPersistenceResult>(
    spoolQueueName(options.spoolDir),
    processor,
    {
      connection: workerConnectionOptions(connectionUrl),
      prefix: bullPrefix(prefix),
      concurrency: options.concurrency ?? 4,
    },
  );
  worker.on('completed', (job, result) => {
    logger.debug({ job_id: job.id, ...result }, 'audio persisted');
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final =
      error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    const fields = {
      err: error,
      job_id: job.id,
      requests: job.data.requests?.length,
      attempts_made: job.attemptsMade,
    };
    if (final) logger.error(fields, 'audio persistence failed');
    else logger.warn(fields, 'audio persistence attempt failed; retrying');
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'audio persistence worker error'));
  return worker;
}

/**
 * Moves one request's spool file into the store and returns the object's location, or
 * null when the request is skipped. Throws what a retry may cure (store errors).
 */
async function storeEntry(
  entry: AudioPersistenceEntry,
  options: AudioPersistenceWorkerOptions,
): Promise<string | null> {
  const { store, spoolDir, logger } = options;
  const fields = { request_id: entry.requestId, object_key: entry.objectKey };
  try {
    const source = spoolFilePath(spoolDir, entry.spoolFile);
    return (await store.putFile(entry.objectKey, source, entry.contentType)).location;
  } catch (error) {
    if (error instanceof MissingSourceFileError) {
      // Moved by an earlier attempt of this batch, or by another batch with this request.
      const existing = await store.head(entry.objectKey);
      if (existing) return existing.location;
      logger.warn(
        fields,
        'audio persistence skipped: neither the spool file nor the object exists',
      );
      return null;
    }
    if (error instanceof InvalidSpoolFileError || error instanceof InvalidObjectKeyError) {
      // No retry can make such an entry valid.
      logger.error({ ...fields, err: error }, 'audio persistence skipped: invalid entry');
      return null;
    }
    throw error;
  }
}
