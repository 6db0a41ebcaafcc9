import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { StreamSlots } from '../../../src/tts/stream/stream-slots.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('stream slots', () => {
  const redis = createRedis(REDIS_URL);
  const prefix = `slots-${randomUUID()}`;

  beforeAll(async () => {
    await redis.ping();
  });
  afterAll(async () => {
    await redis.quit().catch(() => redis.disconnect());
  });

  it('caps open streams per workspace across processes through Redis', async () => {
    const other = createRedis(REDIS_URL);
    try {
      const a = new StreamSlots(redis, { prefix, maxPerWorkspace: 2 });
      const b = new StreamSlots(other, { prefix, maxPerWorkspace: 2 });
      const first = await a.acquire('w1', randomUUID());
      await b.acquire('w1', randomUUID());
      expect((await refusal(a.acquire('w1', randomUUID()))).code).toBe('rate_limited');
      await a.acquire('w2', randomUUID());
      first.release();
      await b.acquire('w1', randomUUID());
    } finally {
      await other.quit();
    }
  });

  it('keeps the same cap per process while Redis is down, and shares it again after', async () => {
    const client = createRedis(REDIS_URL);
    const errors: unknown[] = [];
    let recoveries = 0;
    const slots = new StreamSlots(client, {
      prefix: `${prefix}-down`,
      maxPerWorkspace: 2,
      onError: (e) => errors.push(e),
      onRecovered: () => {
        recoveries += 1;
      },
    });
    try {
      await client.ping();
      client.disconnect(false);
      const first = await slots.acquire('w1', randomUUID());
      const second = await slots.acquire('w1', randomUUID());
      // Not admitted unlimited: the third stream of the workspace is refused in-process.
      const refused = await refusal(slots.acquire('w1', randomUUID()));
      expect(refused.code).toBe('rate_limited');
      expect(refused.status).toBe(429);
      await slots.acquire('w2', randomUUID());
      expect(errors).toHaveLength(4);
      // A stream that ends frees its local slot.
      first.release();
      first.release();
      const third = await slots.acquire('w1', randomUUID());
      await refusal(slots.acquire('w1', randomUUID()));
      second.release();
      third.release();

      await client.connect();
      expect(recoveries).toBe(0);
      const shared = await slots.acquire('w1', randomUUID());
      expect(recoveries).toBe(1);
      expect(await redis.zcard(`${prefix}-down:streams:w1`)).toBe(1);
      shared.release();
    } finally {
      await client.quit().catch(() => client.disconnect());
    }
  });
});
