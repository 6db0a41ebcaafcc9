import { Queue, type QueueOptions, type RedisOptions } from 'bullmq';
import type { Logger } from '../observability/logger.ts';

/** Every BullMQ queue of the service, by name. */
export const QUEUE_NAMES = {
  audioPersistence: 'audio-persistence',
  voiceCloning: 'voice-cloning',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** A persistence queue of one spool folder (spool-queue.ts). */
export type SpoolQueueName = `${typeof QUEUE_NAMES.audioPersistence}-${string}`;

/** BullMQ's key prefix for a deployment: its keys sit beside ours under `REDIS_PREFIX`. */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}:bull`;
}

/**
 * Connection options of a producer (`Queue`): like `createRedis`, commands fail fast while
 * Redis is down rather than piling up, so an api request path never waits on the queue.
 */
export function queueConnectionOptions(redisUrl: string): RedisOptions {
  return {
    url: redisUrl,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
}

/**
 * Connection options of a `Worker`. BullMQ requires `maxRetriesPerRequest: null` on worker
 * connections (its blocking commands must wait through reconnects, not fail after N tries).
 */
export function workerConnectionOptions(redisUrl: string): RedisOptions {
  return {
    url: redisUrl,
    maxRetriesPerRequest: null,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
}

/**
 * Closing a queue that has not reached Redis yet (Redis down) makes BullMQ 5 reject the
 * connection's start-up promise after `close()` removed the connection's listeners, and the
 * re-emitted 'error' becomes an unhandled rejection that would end the process. A listener
 * added once `close()` returns absorbs it; the queue's own 'error' listener saw the error.
 */
class QuietlyClosingQueue<Data> extends Queue<Data> {
  override async close(): Promise<void> {
    await super.close();
    this.connection.on('error', () => {});
  }
}

export interface CreateQueueOptions {
  redisUrl: string;
  /** `REDIS_PREFIX`; BullMQ keys go under `${redisPrefix}:bull`. */
  redisPrefix: string;
  /** Receives connection errors, which would otherwise go to stderr. */
  logger: Logger;
  defaultJobOptions?: QueueOptions['defaultJobOptions'];
}

/**
 * A BullMQ `Queue` (producer side) on its own connection, which `queue.close()` ends.
 *
 * @example
 * ```ts
 * const queue = createQueue<AudioPersistenceJobData>(QUEUE_NAMES.audioPersistence, {
 *   redisUrl: config.REDIS_URL, redisPrefix: config.REDIS_PREFIX, logger,
 * });
 * ```
 */
export function createQueue<Data>(
  name: QueueName | SpoolQueueName,
  options: CreateQueueOptions,
): Queue<Data> {
  const queue = new QuietlyClosingQueue<Data>(name, {
    connection: queueConnectionOptions(options.redisUrl),
    prefix: bullPrefix(options.redisPrefix),
    ...(options.defaultJobOptions ? { defaultJobOptions: options.defaultJobOptions } : {}),
  });
  queue.on('error', (error) => options.logger.warn({ err: error, queue: name }, 'queue error'));
  return queue;
}
