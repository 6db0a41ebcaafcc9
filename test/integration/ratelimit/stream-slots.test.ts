import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
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

  it('counts in-process when Redis does not answer within the check’s bound, and drops the late failure', async () => {
    // A server that accepts the connection and never answers (a stalled Redis): the check
    // gives up at its bound and the stream is counted in this process. The check's failure
    // afterwards (the connection closed) must not reach the process as an unhandled
    // rejection, which would restart the api.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const client = createRedis(`redis://127.0.0.1:${port}`);
    const errors: unknown[] = [];
    try {
      const slots = new StreamSlots(client, {
        prefix: `${prefix}-silent`,
        maxPerWorkspace: 1,
        onError: (e) => errors.push(e),
      });
      const slot = await slots.acquire('w1', randomUUID());
      expect(errors.map((e) => (e as Error).message)).toEqual([
        'stream slot check timed out after 500 ms',
      ]);
      await refusal(slots.acquire('w1', randomUUID()));
      slot.release();
      // The checks still waiting on the silent server fail now.
      client.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      client.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
