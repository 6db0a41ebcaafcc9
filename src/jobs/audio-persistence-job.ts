import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Environment } from '../app/config.ts';
import { settleWithin } from '../system/deadline.ts';
import { QUEUE_NAMES } from './queues.ts';

/**
 * One finished request of a batch: everything the jobs process needs to store its spooled
 * audio and mark its ledger row, and never the audio itself.
 */
export interface AudioPersistenceEntry {
  requestId: string;
  workspaceId: string;
  environment: Environment;
  contentType: string;
  /** File extension without the dot, e.g. `ogg`. */
  extension: string;
  /** Fixed when the entry is made, so every retry moves the file to the same object. */
  objectKey: string;
  /**
   * The file's name inside the spool folder, not a path: each process resolves it against
   * its own `AUDIO_SPOOL_DIR`, so the shared folder may be mounted at different places.
   */
  spoolFile: string;
}

/** What one `audio-persistence` job carries: a batch of requests. */
export interface AudioPersistenceJobData {
  requests: AudioPersistenceEntry[];
}

/** How batches are retried and how many finished ones Redis keeps (for inspection). */
export interface AudioPersistenceJobOptions {
  /** Job attempts, the first included. Default 5. */
  attempts?: number;
  /** First retry delay; each further retry doubles it. Default 1000. */
  backoffDelayMs?: number;
  /** Longest wait for Redis to take a batch before it counts as failed. Default 2000. */
  enqueueTimeoutMs?: number;
}

/** Finished jobs kept for inspection, bounded. */
const REMOVE_ON_COMPLETE = { age: 24 * 3600, count: 1_000 };
const REMOVE_ON_FAIL = { age: 7 * 24 * 3600, count: 1_000 };

/** Thrown by {@link addAudioPersistenceBatch} when Redis did not take a batch in time. */
export class EnqueueTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the queue did not take the batch within ${timeoutMs} ms`);
    this.name = 'EnqueueTimeoutError';
  }
}

/**
 * Adds one batch as one job with a fresh job id. Rejects when Redis refuses it or does not
 * answer within `enqueueTimeoutMs` ({@link EnqueueTimeoutError}); a timed-out add may still
 * land later, which is harmless: storing a request twice moves nothing the second time.
 *
 * @example
 * ```ts
 * await addAudioPersistenceBatch(queue, entries, { attempts: 5, backoffDelayMs: 1000 });
 * ```
 */
export async function addAudioPersistenceBatch(
  queue: Queue<AudioPersistenceJobData>,
  requests: AudioPersistenceEntry[],
  options: AudioPersistenceJobOptions = {},
): Promise<void> {
  const timeoutMs = options.enqueueTimeoutMs ?? 2_000;
  const added = queue.add(
    QUEUE_NAMES.audioPersistence,
    { requests },
    {
      jobId: randomUUID(),
      attempts: options.attempts ?? 5,
      backoff: { type: 'exponential', delay: options.backoffDelayMs ?? 1_000 },
      removeOnComplete: REMOVE_ON_COMPLETE,
      removeOnFail: REMOVE_ON_FAIL,
    },
  );
  await settleWithin(added, timeoutMs, () => {
    throw new EnqueueTimeoutError(timeoutMs);
  });
}
