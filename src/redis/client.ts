import { Redis } from 'ioredis';

/**
 * A Redis connection for commands. Commands fail fast while Redis is down instead of
 * queueing without bound; ioredis keeps reconnecting in the background.
 */
export function createRedis(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Connection errors surface on commands; an unhandled 'error' event would crash.
  redis.on('error', () => {});
  return redis;
}
