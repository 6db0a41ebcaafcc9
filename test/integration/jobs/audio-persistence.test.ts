import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AudioPersistence,
  type AudioPersistenceJobData,
  type AudioPersistenceOptions,
  type AudioPersistenceRequest,
  audioRedisKey,
  createAudioPersistenceWorker,
} from '../../../src/jobs/audio-persistence.ts';
import { createQueue, QUEUE_NAMES } from '../../../src/jobs/queues.ts';
import type { Logger } from '../../../src/observability/logger.ts';
import { createRedis } from '../../../src/redis/client.ts';
import type { AudioStore } from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { EVENT_DEADLINE_MS, waitFor } from '../../helpers/wait.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Nothing listens here: connections are refused. */
const UNREACHABLE_REDIS_URL = 'redis://127.0.0.1:1';
/**
 * How many times its `enqueueTimeoutMs` an `enqueue` may take before the test calls it a
 * hang. The real cost is the timer plus event-loop lag, far from zero on a busy machine but
 * never ten whole timeouts; a producer that waits on Redis itself never returns at all.
 */
const ENQUEUE_BOUND_FACTOR = 10;
/** A worker picking a job up and storing it: moments on an idle machine. */
const JOB_DEADLINE_MS = EVENT_DEADLINE_MS;

type LogLine = { level: number; msg: string; request_id?: string } & Record<string, unknown>;

function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  return { logger, lines };
}

/** An AudioStore that counts puts and can fail the first `failures` of them. */
class RecordingStore implements AudioStore {
  puts = 0;
  constructor(
    private readonly inner: AudioStore,
    private failures = 0,
  ) {}

  async put(objectKey: string, audio: Buffer, contentType: string) {
    this.puts += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('store unavailable');
    }
    return this.inner.put(objectKey, audio, contentType);
  }

  putFile(objectKey: string, sourcePath: string, contentType: string) {
    return this.inner.putFile(objectKey, sourcePath, contentType);
  }

  head(objectKey: string) {
    return this.inner.head(objectKey);
  }

  get(objectKey: string) {
    return this.inner.get(objectKey);
  }
}

function request(overrides: Partial<AudioPersistenceRequest> = {}): AudioPersistenceRequest {
  return {
    requestId: randomUUID(),
    workspaceId: `org_${randomBytes(4).toString('hex')}`,
    environment: 'production',
    format: 'mp3_44100_128',
    contentType: 'audio/mpeg',
    extension: 'mp3',
    audio: randomBytes(4096),
    ...overrides,
  };
}

describe('audio persistence over BullMQ and Redis', () => {
  let prefix: string;
  let rootDir: string;
  let redis: Redis;
  let queue: Queue<AudioPersistenceJobData>;
  let log: ReturnType<typeof captureLogger>;
  let disk: LocalDiskAudioStore;
  const closers: Array<() => Promise<unknown> | unknown> = [];

  const persistence = (options: Partial<AudioPersistenceOptions> = {}) =>
    new AudioPersistence(queue, redis, {
      prefix,
      maxBytes: 1024 * 1024,
      ttlSeconds: 60,
      logger: log.logger,
      backoffDelayMs: 20,
      ...options,
    });

  const startWorker = (store: AudioStore) => {
    const persisted: Array<[string, string]> = [];
    const onPersisted = vi.fn(async (requestId: string, location: string) => {
      persisted.push([requestId, location]);
    });
    const worker: Worker = createAudioPersistenceWorker({
      connectionUrl: REDIS_URL,
      prefix,
      store,
      onPersisted,
      logger: log.logger,
      concurrency: 2,
    });
    closers.push(() => worker.close());
    return { worker, onPersisted, persisted };
  };

  beforeEach(async () => {
    prefix = `test-${randomBytes(4).toString('hex')}`;
    rootDir = await mkdtemp(join(tmpdir(), 'awp-audio-'));
    log = captureLogger();
    redis = createRedis(REDIS_URL);
    queue = createQueue<AudioPersistenceJobData>(QUEUE_NAMES.audioPersistence, {
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      logger: log.logger,
    });
    disk = new LocalDiskAudioStore(rootDir);
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await queue.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('stores the exact bytes, reports the location and deletes the Redis copy', async () => {
    const input = request();
    await persistence({ ttlSeconds: 60 }).enqueue(input);

    const key = audioRedisKey(prefix, input.requestId);
    expect(await redis.getBuffer(key)).toEqual(input.audio);
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    const job = await queue.getJob(input.requestId);
    expect(job?.id).toBe(input.requestId);
    expect(job?.opts.attempts).toBe(5);
    expect(job?.opts.backoff).toEqual({ type: 'exponential', delay: 20 });
    // The job carries metadata only; the bytes wait in Redis.
    expect(JSON.stringify(job?.data).length).toBeLessThan(512);

    const { onPersisted, persisted } = startWorker(disk);
    await waitFor(() => onPersisted.mock.calls.length >= 1, {
      what: 'the worker to report the stored audio',
      timeoutMs: JOB_DEADLINE_MS,
    });
    expect(onPersisted).toHaveBeenCalledTimes(1);

    const [requestId, location] = persisted[0]!;
    expect(requestId).toBe(input.requestId);
    expect(location.startsWith('file://')).toBe(true);
    expect(await readFile(fileURLToPath(location))).toEqual(input.audio);

    const objectKey = job!.data.objectKey;
    expect(objectKey).toMatch(
      new RegExp(`^${input.workspaceId}/\\d{4}/\\d{2}/\\d{2}/${input.requestId}\\.mp3$`),
    );
    expect(fileURLToPath(location)).toBe(join(rootDir, objectKey));
    expect(await disk.get(objectKey)).toEqual(input.audio);

    await waitFor(async () => (await redis.exists(key)) === 0, {
      what: 'the parked bytes to be deleted',
    });
    expect(await queue.getJobState(input.requestId)).toBe('completed');
    // No temporary files left beside the object.
    const directory = join(rootDir, objectKey, '..');
    expect(await readdir(directory)).toEqual([`${input.requestId}.mp3`]);
  });

  it('stores a request id once however often it is enqueued', async () => {
    const store = new RecordingStore(disk);
    const { onPersisted } = startWorker(store);
    const producer = persistence();
    const input = request();

    await Promise.all([producer.enqueue(input), producer.enqueue(input)]);
    await producer.enqueue(input);
    await waitFor(() => onPersisted.mock.calls.length >= 1, {
      what: 'the worker to report the stored audio',
      timeoutMs: JOB_DEADLINE_MS,
    });
    expect(onPersisted).toHaveBeenCalledTimes(1);
    // onPersisted runs before the job is marked completed; the next step needs the latter.
    await waitFor(async () => (await queue.getJobState(input.requestId)) === 'completed', {
      what: 'the job to complete',
    });

    // After the job completed: a further enqueue neither adds a job nor leaves bytes behind.
    await producer.enqueue(input);
    // enqueue may return at its timeout while Redis is still answering; this line is logged
    // once the bytes it parked were dropped again.
    await waitFor(
      () =>
        log.lines.some(
          (line) =>
            line.request_id === input.requestId && line.msg === 'audio persistence already done',
        ),
      { what: 'the producer to see the finished job' },
    );
    expect(store.puts).toBe(1);
    expect(onPersisted).toHaveBeenCalledTimes(1);
    expect(await redis.exists(audioRedisKey(prefix, input.requestId))).toBe(0);
    expect(await queue.getJobCounts('completed', 'waiting', 'active', 'delayed')).toMatchObject({
      completed: 1,
      waiting: 0,
      active: 0,
      delayed: 0,
    });
  });

  it('skips audio larger than maxBytes and says so at info', async () => {
    const producer = persistence({ maxBytes: 1000 });
    const tooLarge = request({ audio: randomBytes(1001) });
    const atLimit = request({ audio: randomBytes(1000) });

    await producer.enqueue(tooLarge);
    await producer.enqueue(atLimit);

    expect(await redis.exists(audioRedisKey(prefix, tooLarge.requestId))).toBe(0);
    expect(await queue.getJobState(tooLarge.requestId)).toBe('unknown');
    expect(await queue.getJobState(atLimit.requestId)).toBe('waiting');
    const skipped = log.lines.find((line) => line.request_id === tooLarge.requestId);
    expect(skipped).toMatchObject({ level: 30, size_bytes: 1001, max_bytes: 1000 });
  });

  it('retries a failing store until it succeeds', async () => {
    const store = new RecordingStore(disk, 2);
    const { onPersisted, persisted } = startWorker(store);
    const input = request();

    await persistence({ backoffDelayMs: 20 }).enqueue(input);
    await waitFor(() => onPersisted.mock.calls.length >= 1, {
      what: 'the worker to report the stored audio',
      timeoutMs: JOB_DEADLINE_MS,
    });
    expect(onPersisted).toHaveBeenCalledTimes(1);

    expect(store.puts).toBe(3);
    expect(await readFile(fileURLToPath(persisted[0]![1]))).toEqual(input.audio);
    expect(await queue.getJobState(input.requestId)).toBe('completed');
    const retries = log.lines.filter(
      (line) => line.request_id === input.requestId && line.msg.includes('retrying'),
    );
    expect(retries).toHaveLength(2);
  });

  it('fails a job whose bytes expired at once, without retries', async () => {
    const input = request();
    await persistence({ ttlSeconds: 1, backoffDelayMs: 20 }).enqueue(input);
    const key = audioRedisKey(prefix, input.requestId);
    // The bytes live one second; Redis removes them at the latest when they are next read.
    await waitFor(async () => (await redis.exists(key)) === 0, {
      what: 'the parked bytes to expire',
      intervalMs: 100,
    });

    const store = new RecordingStore(disk);
    const { onPersisted } = startWorker(store);
    // 'failed' is final: a job with attempts left goes to 'delayed' between attempts, so a
    // retry would have to happen before this state is reached.
    await waitFor(async () => (await queue.getJobState(input.requestId)) === 'failed', {
      what: 'the job to fail',
      timeoutMs: JOB_DEADLINE_MS,
    });

    const job = await queue.getJob(input.requestId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/expired/);
    expect(await queue.getJobState(input.requestId)).toBe('failed');
    expect(store.puts).toBe(0);
    expect(onPersisted).not.toHaveBeenCalled();
  });

  it('resolves enqueue quickly when Redis is unreachable', async () => {
    const deadRedis = createRedis(UNREACHABLE_REDIS_URL);
    const deadQueue = createQueue<AudioPersistenceJobData>(QUEUE_NAMES.audioPersistence, {
      redisUrl: UNREACHABLE_REDIS_URL,
      redisPrefix: prefix,
      logger: log.logger,
    });
    closers.push(
      () => deadRedis.disconnect(),
      () => deadQueue.close(),
    );
    const enqueueTimeoutMs = 2_000; // the default, spelled out for the bound below
    const producer = new AudioPersistence(deadQueue, deadRedis, {
      prefix,
      maxBytes: 1024 * 1024,
      ttlSeconds: 60,
      logger: log.logger,
      enqueueTimeoutMs,
    });

    // Returns instead of waiting on a Redis that is not there: either the refused command
    // fails it or the timeout ends it, and either way it says so at warn.
    const started = Date.now();
    await expect(producer.enqueue(request())).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(enqueueTimeoutMs * ENQUEUE_BOUND_FACTOR);
    expect(log.lines.filter((line) => line.level === 40).map((line) => line.msg)).toContainEqual(
      expect.stringMatching(/^audio persistence enqueue (failed|timed out)$/),
    );
  });

  it('resolves enqueue within its timeout when only the queue is unreachable', async () => {
    const deadQueue = createQueue<AudioPersistenceJobData>(QUEUE_NAMES.audioPersistence, {
      redisUrl: UNREACHABLE_REDIS_URL,
      redisPrefix: prefix,
      logger: log.logger,
    });
    closers.push(() => deadQueue.close());
    const producer = new AudioPersistence(deadQueue, redis, {
      prefix,
      maxBytes: 1024 * 1024,
      ttlSeconds: 60,
      logger: log.logger,
      enqueueTimeoutMs: 300,
    });

    const started = Date.now();
    await expect(producer.enqueue(request())).resolves.toBeUndefined();
    // The configured timeout ended it (not the 2 s default, not the queue's own retries)...
    expect(log.lines.find((line) => line.msg === 'audio persistence enqueue timed out')).toEqual(
      expect.objectContaining({ level: 40, timeout_ms: 300 }),
    );
    // ...and it returned then, give or take event-loop lag.
    expect(Date.now() - started).toBeLessThan(300 * ENQUEUE_BOUND_FACTOR);
  });
});
