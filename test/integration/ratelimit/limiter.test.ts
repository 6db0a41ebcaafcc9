import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.ts';
import { RateLimiter } from '../../../src/ratelimit/limiter.ts';
import { StoreOutage } from '../../../src/ratelimit/store-outage.ts';
import { RateLimitStoreTimeoutError } from '../../../src/ratelimit/store-timeout-error.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { sleep } from '../../helpers/wait.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * One cell every ten seconds. Tests that count cells use it so that no cell can refill
 * between their few Redis calls, however slowly the machine runs them.
 */
const SLOW = 6;

describe('RateLimiter against a real Redis', () => {
  // A prefix of its own keeps parallel runs on one Redis from sharing buckets.
  const prefix = `test-rl-${randomUUID()}`;
  // Two clients stand for two api processes.
  let redisA: Redis;
  let redisB: Redis;
  let limiter: RateLimiter;

  beforeAll(async () => {
    redisA = createRedis(REDIS_URL);
    redisB = createRedis(REDIS_URL);
    await Promise.all([redisA.ping(), redisB.ping()]);
    limiter = new RateLimiter(redisA, { prefix });
  });

  afterAll(async () => {
    const keys = await redisA.keys(`${prefix}:*`);
    if (keys.length > 0) await redisA.del(...keys);
    await Promise.all([redisA.quit(), redisB.quit()]);
  });

  it('allows the burst at once, then refuses with the wait until the next cell', async () => {
    const limit = { perMinute: SLOW, burst: 3 };
    const intervalMs = 60_000 / SLOW;
    const decisions = [];
    const started = Date.now();
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('burst', limit));
    const elapsed = Date.now() - started;
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.slice(0, 3).every((d) => d.retryAfterMs === 0)).toBe(true);
    // The next cell comes one interval after the first call: the calls themselves took
    // `elapsed` of it (Redis and this process share a clock; 1 ms for rounding).
    expect(decisions[3]!.retryAfterMs).toBeGreaterThanOrEqual(intervalMs - elapsed - 1);
    expect(decisions[3]!.retryAfterMs).toBeLessThanOrEqual(intervalMs);
  });

  it('defaults the burst to perMinute / 6 rounded up', async () => {
    const first = await limiter.consume('default-burst', { perMinute: 61 });
    expect(first).toEqual({ allowed: true, retryAfterMs: 0, remaining: 10 });
    const slow = await limiter.consume('default-burst-slow', { perMinute: 1 });
    expect(slow).toEqual({ allowed: true, retryAfterMs: 0, remaining: 0 });
    expect((await limiter.consume('default-burst-slow', { perMinute: 1 })).allowed).toBe(false);
  });

  it('charges the cost in cells and refuses a cost that does not fit', async () => {
    const limit = { perMinute: SLOW, burst: 5 };
    expect(await limiter.consume('cost', limit, 3)).toMatchObject({ allowed: true, remaining: 2 });
    const refused = await limiter.consume('cost', limit, 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 2 });
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    // The refused request took nothing.
    expect(await limiter.consume('cost', limit, 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refills at the steady rate and lets idle keys expire', { timeout: 30_000 }, async () => {
    // Waiting for refills is what this test does, so its interval is short; two seconds
    // still leave room for three Redis calls on a busy machine before a cell refills.
    const intervalMs = 2_000;
    const limit = { perMinute: 60_000 / intervalMs, burst: 2 };
    const key = `${prefix}:rl:refill`;
    expect((await limiter.consume('refill', limit)).allowed).toBe(true);
    expect((await limiter.consume('refill', limit)).allowed).toBe(true);
    const refused = await limiter.consume('refill', limit);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(intervalMs);
    const ttlMs = await redisA.pttl(key);
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(2 * intervalMs);

    // Waiting the advertised time is enough for one more (time only moves on from there;
    // 5 ms for timer rounding).
    await sleep(refused.retryAfterMs + 5);
    expect((await limiter.consume('refill', limit)).allowed).toBe(true);

    // Two intervals after that the bucket is full again: the key is gone, and only the
    // burst passes.
    await sleep(2 * intervalMs + 50);
    expect(await redisA.exists(key)).toBe(0);
    const after = [];
    for (let i = 0; i < 3; i++) after.push((await limiter.consume('refill', limit)).allowed);
    expect(after).toEqual([true, true, false]);
  });

  it('shares one budget between limiters on separate connections', async () => {
    const other = new RateLimiter(redisB, { prefix });
    const limit = { perMinute: SLOW, burst: 4 };
    const decisions = [];
    for (const each of [limiter, other, limiter, other, other, limiter]) {
      decisions.push(await each.consume('shared', limit));
    }
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([3, 2, 1, 0, 0, 0]);
  });

  it('keeps buckets independent', async () => {
    const limit = { perMinute: SLOW, burst: 1 };
    expect((await limiter.consume('independent-a', limit)).allowed).toBe(true);
    expect((await limiter.consume('independent-a', limit)).allowed).toBe(false);
    expect((await limiter.consume('independent-b', limit)).allowed).toBe(true);
    // Same bucket name under another prefix is another bucket.
    const elsewhere = new RateLimiter(redisB, { prefix: `${prefix}-other` });
    expect((await elsewhere.consume('independent-a', limit)).allowed).toBe(true);
    await redisA.del(`${prefix}-other:rl:independent-a`);
  });

  it('decides several buckets at once: an allowed request takes a cell from each, a refused one from none', async () => {
    const key = { bucket: 'all-key', limit: { perMinute: SLOW, burst: 3 } };
    const workspace = { bucket: 'all-workspace', limit: { perMinute: SLOW, burst: 2 } };
    const both = [key, workspace];
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.consumeAll(both));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // The workspace refused the third: the key kept its third cell, and has no fourth.
    expect(await limiter.consume(key.bucket, key.limit)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      remaining: 0,
    });
    expect((await limiter.consume(key.bucket, key.limit)).allowed).toBe(false);
  });

  it('answers a refusal of several buckets with the wait until all of them allow it', async () => {
    const slow = { bucket: 'all-slow', limit: { perMinute: SLOW, burst: 1 } };
    const fast = { bucket: 'all-fast', limit: { perMinute: 600, burst: 1 } };
    const started = Date.now();
    expect((await limiter.consumeAll([fast, slow])).allowed).toBe(true);
    const refused = await limiter.consumeAll([fast, slow]);
    const elapsed = Date.now() - started;
    expect(refused.allowed).toBe(false);
    // The slow bucket's interval (10 s) decides, not the fast one's (100 ms).
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(60_000 / SLOW - elapsed - 1);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000 / SLOW);
    // An unlimited bucket among them changes nothing and stores nothing.
    const unlimited = { bucket: 'all-unlimited', limit: { perMinute: 0 } };
    expect((await limiter.consumeAll([unlimited, slow])).allowed).toBe(false);
    expect(await redisA.exists(`${prefix}:rl:all-unlimited`)).toBe(0);
  });

  it('does nothing for an unlimited rate, not even a Redis call', async () => {
    // A closed client rejects every command, so any Redis call would surface.
    const closed = createRedis(REDIS_URL);
    await closed.quit();
    const errors: unknown[] = [];
    const offline = new RateLimiter(closed, { prefix, onError: (e) => errors.push(e) });
    for (const perMinute of [0, Number.POSITIVE_INFINITY]) {
      for (let i = 0; i < 5; i++) {
        expect(await offline.consume('unlimited', { perMinute })).toEqual({
          allowed: true,
          retryAfterMs: 0,
          remaining: Number.POSITIVE_INFINITY,
        });
        await offline.enforce('unlimited', { perMinute });
      }
    }
    expect(errors).toEqual([]);
    expect(await redisA.exists(`${prefix}:rl:unlimited`)).toBe(0);
    // The premise holds: a limited rate on the same client does reach (the closed) Redis.
    await expect(offline.consume('unlimited', { perMinute: 60 })).rejects.toThrow();
  });

  it('enforce throws rate_limited with retryAfterSeconds once the rate is exceeded', async () => {
    const limit = { perMinute: SLOW, burst: 1 };
    await limiter.enforce('enforce', limit);
    const error = await limiter.enforce('enforce', limit).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.code).toBe('rate_limited');
    expect(apiError.status).toBe(429);
    expect(apiError.retryable).toBe(true);
    expect(apiError.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(apiError.retryAfterSeconds).toBeLessThanOrEqual(60 / SLOW);
    expect(apiError.message).toBe(
      `Rate limit exceeded; retry after ${apiError.retryAfterSeconds} s.`,
    );
  });

  it('rejects limits and costs that make no sense, even in enforce', async () => {
    await expect(limiter.consume('bad', { perMinute: -1 })).rejects.toThrow(RangeError);
    await expect(limiter.consume('bad', { perMinute: 60, burst: 0 })).rejects.toThrow(RangeError);
    await expect(limiter.consume('bad', { perMinute: 60 }, -1)).rejects.toThrow(RangeError);
    await expect(limiter.enforce('bad', { perMinute: 60, burst: 2 }, 3)).rejects.toThrow(
      RangeError,
    );
  });
});

describe('RateLimiter without a working Redis', () => {
  /**
   * How many times its `timeoutMs` one check may take before the test calls it a hang: the
   * real cost is the timer plus event-loop lag, never ten whole timeouts on any machine.
   */
  const BOUND_FACTOR = 10;

  it('falls back to a per-process limit promptly when Redis is unreachable', async () => {
    const timeoutMs = 500; // the default, spelled out for the bound below
    const redis = new Redis('redis://127.0.0.1:1', {
      connectTimeout: 200,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 100,
    });
    redis.on('error', () => {});
    const errors: unknown[] = [];
    const limiter = new RateLimiter(redis, {
      prefix: 'unreachable',
      timeoutMs,
      onError: (e) => errors.push(e),
    });
    try {
      // Each check is decided within its bounded wait instead of holding the request while
      // ioredis reconnects, and by the same limit kept in this process: the burst of one
      // passes, the next is refused with the wait until the next cell.
      const started = performance.now();
      await limiter.enforce('down', { perMinute: 60, burst: 1 });
      const refused = await limiter
        .enforce('down', { perMinute: 60, burst: 1 })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).code).toBe('rate_limited');
      expect((refused as ApiError).retryAfterSeconds).toBe(1);
      // Another bucket has its own budget.
      await limiter.enforce('down-other', { perMinute: 60, burst: 1 });
      expect(performance.now() - started).toBeLessThan(3 * timeoutMs * BOUND_FACTOR);
      expect(errors).toHaveLength(3);
      expect(errors.every((e) => e instanceof Error)).toBe(true);
      // consume leaves the choice to the caller.
      await expect(limiter.consume('down', { perMinute: 60 })).rejects.toThrow();
    } finally {
      redis.disconnect();
    }
  });

  it('reports one outage per Redis outage, and its end, however many checks fell back', async () => {
    const redis = createRedis(REDIS_URL);
    const events: string[] = [];
    const outage = new StoreOutage('rate_limit', {
      outageStarted: (name) => events.push(`started ${name}`),
      outageEnded: (name, fallbacks) => events.push(`ended ${name} after ${fallbacks}`),
      fellBack: () => events.push('fallback'),
    });
    const limiter = new RateLimiter(redis, {
      prefix: `outage-${randomUUID()}`,
      timeoutMs: 200,
      onError: (e) => outage.failed(e),
      onRecovered: () => outage.succeeded(),
    });
    const limit = { perMinute: 6000 };
    try {
      await limiter.enforce('a', limit);
      expect(events).toEqual([]);
      // The connection drops and stays down: commands wait in ioredis's queue until the
      // limiter's timeout decides them locally.
      redis.disconnect(false);
      for (let i = 0; i < 5; i++) await limiter.enforce('a', limit);
      expect(outage.down).toBe(true);
      await redis.connect();
      await limiter.enforce('a', limit);
      await limiter.enforce('a', limit);
      expect(events).toEqual([
        'fallback',
        'started rate_limit',
        'fallback',
        'fallback',
        'fallback',
        'fallback',
        'ended rate_limit after 5',
      ]);
    } finally {
      await redis.quit().catch(() => redis.disconnect());
    }
  });

  it('gives up after timeoutMs when Redis accepts but never answers', async () => {
    // A TCP server that swallows everything: ioredis connects and then waits forever.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const redis = createRedis(`redis://127.0.0.1:${port}`);
    const errors: unknown[] = [];
    const timeoutMs = 150;
    const limiter = new RateLimiter(redis, {
      prefix: 'silent',
      timeoutMs,
      onError: (e) => errors.push(e),
    });
    try {
      const started = performance.now();
      await limiter.enforce('hang', { perMinute: 60 });
      const elapsed = performance.now() - started;
      // It was the configured timeout that ended the wait (Redis never answers)...
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(RateLimitStoreTimeoutError);
      expect((errors[0] as RateLimitStoreTimeoutError).timeoutMs).toBe(timeoutMs);
      // ...and the check returned then, give or take event-loop lag.
      expect(elapsed).toBeLessThan(timeoutMs * BOUND_FACTOR);
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
