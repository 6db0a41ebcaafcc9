import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AudioPersistenceJobData } from '../../../src/jobs/audio-persistence-job.ts';
import {
  AudioPersistence,
  type AudioPersistenceRequest,
} from '../../../src/jobs/audio-persistence-producer.ts';
import { createQueue } from '../../../src/jobs/queues.ts';
import { spoolQueueName } from '../../../src/jobs/spool-queue.ts';
import { SpoolSpace } from '../../../src/jobs/spool-space.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { captureLogger } from '../../helpers/log-capture.ts';

// The free-space floor of the persistence spool, against the real file system of the
// test's temporary folder: a floor above its free space refuses every write, a floor far
// below admits them, and bytes admitted between two readings count as used.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAUSED =
  'audio persistence paused: the spool disk is at its free-space floor (AUDIO_SPOOL_MIN_FREE_BYTES); audio is not persisted';
const TIB = 1024 ** 4;
const MIB = 1024 ** 2;

async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

describe('the persistence spool keeps its disk above AUDIO_SPOOL_MIN_FREE_BYTES', () => {
  let prefix: string;
  let spoolDir: string;
  let redis: Redis;
  let queue: Queue<AudioPersistenceJobData>;
  let log: ReturnType<typeof captureLogger>;

  beforeEach(async () => {
    prefix = `test-${randomBytes(4).toString('hex')}`;
    spoolDir = await mkdtemp(join(tmpdir(), 'awp-spool-space-'));
    log = captureLogger();
    redis = createRedis(REDIS_URL);
    queue = createQueue<AudioPersistenceJobData>(spoolQueueName(spoolDir), {
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      logger: log.logger,
    });
  });

  afterEach(async () => {
    await queue.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await rm(spoolDir, { recursive: true, force: true });
  });

  const request = (): AudioPersistenceRequest => ({
    requestId: uuidv7(),
    workspaceId: uuidv7(),
    environment: 'production',
    contentType: 'application/octet-stream',
    extension: 'pcm',
    audio: randomBytes(4096),
  });

  const queuedRequests = async () =>
    (await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed'])).flatMap((job) =>
      (job.data as AudioPersistenceJobData).requests.map((entry) => entry.requestId),
    );

  it('writes no file and queues nothing while the floor is above the free space, and warns once', async () => {
    const minFreeBytes = (await freeBytes(spoolDir)) + TIB;
    const persistence = new AudioPersistence(queue, {
      spoolDir,
      maxBytes: MIB,
      minFreeBytes,
      logger: log.logger,
    });
    const first = request();
    const second = request();

    await persistence.enqueue(first);
    await persistence.enqueue(second);
    await persistence.close();

    expect(await readdir(spoolDir)).toEqual([]);
    expect(await queuedRequests()).toEqual([]);
    const warnings = log.lines.filter((line) => line.level >= 40);
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        msg: PAUSED,
        request_id: first.requestId,
        dir: spoolDir,
        min_free_bytes: minFreeBytes,
      }),
    ]);
    expect(warnings[0]!.free_bytes).toBeLessThan(minFreeBytes);
  });

  it('persists as before when the floor is far below the free space', async () => {
    const persistence = new AudioPersistence(queue, {
      spoolDir,
      maxBytes: MIB,
      minFreeBytes: 1,
      logger: log.logger,
    });
    const input = request();

    await persistence.enqueue(input);
    await persistence.close();

    expect(await readdir(spoolDir)).toEqual([`${input.requestId}.pcm`]);
    expect(await queuedRequests()).toEqual([input.requestId]);
    expect(log.lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('counts what it admitted since its last reading as used', async () => {
    const minFreeBytes = (await freeBytes(spoolDir)) - 1024 * MIB;
    const space = new SpoolSpace({ dir: spoolDir, minFreeBytes, refreshMs: 60_000 });

    expect(await space.admit(400 * MIB)).toEqual({ admitted: true });
    expect(await space.admit(400 * MIB)).toEqual({ admitted: true });
    const third = await space.admit(400 * MIB);

    expect(third).toEqual({
      admitted: false,
      freeBytes: expect.any(Number),
      minFreeBytes,
    });
    // The refusal counts nothing: a smaller file still fits under the same reading.
    expect(await space.admit(100 * MIB)).toEqual({ admitted: true });
  });

  it('measures a spool folder that does not exist yet by creating it', async () => {
    const missing = join(spoolDir, 'not-yet');
    const space = new SpoolSpace({ dir: missing, minFreeBytes: (await freeBytes(spoolDir)) + TIB });

    expect(await space.admit(1)).toEqual({
      admitted: false,
      freeBytes: expect.any(Number),
      minFreeBytes: expect.any(Number),
    });
    expect(await readdir(spoolDir)).toEqual(['not-yet']);
  });

  it('checks nothing with a floor of 0', async () => {
    const space = new SpoolSpace({ dir: join(spoolDir, 'never-made'), minFreeBytes: 0 });
    expect(await space.admit(10 * TIB)).toEqual({ admitted: true });
    expect(await readdir(spoolDir)).toEqual([]);
  });
});
