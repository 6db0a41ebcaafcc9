import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getOutputFormatInfo, type OutputFormat } from '../../../media/formats.ts';
import { Ledger } from '../../../src/billing/ledger.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type {
  AudioPersistenceEntry,
  AudioPersistenceJobData,
} from '../../../src/jobs/audio-persistence-job.ts';
import {
  AudioPersistence,
  type AudioPersistenceOptions,
  type AudioPersistenceRequest,
} from '../../../src/jobs/audio-persistence-producer.ts';
import {
  type AudioPersistenceResult,
  createAudioPersistenceWorker,
} from '../../../src/jobs/audio-persistence-worker.ts';
import {
  PersistenceSweeper,
  type PersistenceSweeperOptions,
} from '../../../src/jobs/persistence-sweeper.ts';
import { bullPrefix, createQueue, QUEUE_NAMES } from '../../../src/jobs/queues.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { type AudioStore, audioFileExtension } from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../../helpers/database.ts';
import { captureLogger } from '../../helpers/log-capture.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { waitFor } from '../../helpers/wait.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Nothing listens here: connections are refused. */
const UNREACHABLE_REDIS_URL = 'redis://127.0.0.1:1';
/** Long enough that no batch is sent by its timer while a test runs: only by size or close(). */
const NEVER_MS = 10 * 60_000;

const QUEUE_FAILED =
  'audio persistence batches not queued; their files wait in the spool for the sweeper';
const FILE_MISSING = 'audio persistence skipped: neither the spool file nor the object exists';

/** The local disk store, whose `putFile` fails on the calls numbered in `failOn` (1-based). */
class FailingStore implements AudioStore {
  putFileCalls = 0;
  constructor(
    private readonly inner: AudioStore,
    private readonly failOn: ReadonlySet<number>,
  ) {}

  put(objectKey: string, audio: Buffer, contentType: string) {
    return this.inner.put(objectKey, audio, contentType);
  }

  async putFile(objectKey: string, sourcePath: string, contentType: string) {
    this.putFileCalls += 1;
    if (this.failOn.has(this.putFileCalls)) throw new Error('store unavailable');
    return this.inner.putFile(objectKey, sourcePath, contentType);
  }

  head(objectKey: string) {
    return this.inner.head(objectKey);
  }

  get(objectKey: string) {
    return this.inner.get(objectKey);
  }
}

describe.each(DIALECTS)('audio persistence through the spool on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ledger: Ledger;
  let workspaceId: string;

  let prefix: string;
  let spoolDir: string;
  let rootDir: string;
  let redis: Redis;
  let queue: Queue<AudioPersistenceJobData>;
  let log: ReturnType<typeof captureLogger>;
  let disk: LocalDiskAudioStore;
  const closers: Array<() => Promise<unknown> | unknown> = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = await openTestDatabase(database);
    ledger = new Ledger(handle.db, 'audio-persistence-test');
    workspaceId = (await seedWorkspace(handle)).workspaceId;
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    prefix = `test-${randomBytes(4).toString('hex')}`;
    spoolDir = await mkdtemp(join(tmpdir(), 'awp-spool-'));
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
    await rm(spoolDir, { recursive: true, force: true });
    await rm(rootDir, { recursive: true, force: true });
  });

  /** A request that succeeded in the ledger, with audio to persist. */
  const finishedRequest = async (
    options: { format?: OutputFormat; audioBytes?: number } = {},
  ): Promise<AudioPersistenceRequest> => {
    const format = options.format ?? 'opus_48000_64';
    const requestId = uuidv7();
    await ledger.start({
      requestId,
      auditId: `aud_${uuidv7()}`,
      workspaceId,
      environment: 'production',
      apiKeyId: null,
      transport: 'http',
      voiceId: 'voice_test',
      route: 'native:test',
      outputFormat: format,
      reserveChars: 10,
      millicreditsPer1kChars: 10_000,
      passThrough: false,
    });
    await ledger.finish(requestId, {
      status: 'succeeded',
      charsSynthesized: 10,
      providerAudioMs: 500,
      encodedDurationMs: 500,
    });
    return {
      requestId,
      workspaceId,
      environment: 'production',
      contentType: getOutputFormatInfo(format).contentType,
      extension: audioFileExtension(format),
      audio: randomBytes(options.audioBytes ?? 4096),
    };
  };

  const producer = (options: Partial<AudioPersistenceOptions> = {}, target = queue) => {
    const persistence = new AudioPersistence(target, {
      spoolDir,
      maxBytes: 1024 * 1024,
      logger: log.logger,
      backoffDelayMs: 20,
      ...options,
    });
    closers.push(() => persistence.close());
    return persistence;
  };

  const startWorker = (store: AudioStore = disk) => {
    const worker: Worker<AudioPersistenceJobData, AudioPersistenceResult> =
      createAudioPersistenceWorker({
        connectionUrl: REDIS_URL,
        prefix,
        spoolDir,
        store,
        onPersisted: (stored) => ledger.markAudioPersistedMany(stored),
        logger: log.logger,
        concurrency: 2,
      });
    closers.push(() => worker.close());
    return worker;
  };

  const sweeper = (options: Partial<PersistenceSweeperOptions> = {}) =>
    new PersistenceSweeper({
      spoolDir,
      queue,
      ledger,
      logger: log.logger,
      minAgeMs: 0,
      backoffDelayMs: 20,
      ...options,
    });

  const row = (requestId: string) =>
    handle.db
      .selectFrom('synthesis_requests')
      .select(['audio_persisted', 'audio_location'])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();

  /** The stored location of `requestId`, once its row is marked. */
  const persistedLocation = (requestId: string) =>
    waitFor(
      async () => {
        const current = await row(requestId);
        return Number(current.audio_persisted) === 1 ? current.audio_location : undefined;
      },
      { what: `the audio of ${requestId} to be persisted`, intervalMs: 50 },
    );

  const jobs = async () =>
    (await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed'])).map(
      (job) => job as typeof job & { data: AudioPersistenceJobData },
    );

  const locationOf = (objectKey: string) => pathToFileURL(join(rootDir, objectKey)).href;

  it('stores the exact bytes at the object key and marks the row with its location', async () => {
    const input = await finishedRequest();
    await producer().enqueue(input);
    const spoolFile = `${input.requestId}.ogg`;
    // Spooled before it is queued; the batch goes out 100 ms after its first request.
    expect((await readFile(join(spoolDir, spoolFile))).equals(input.audio)).toBe(true);
    const [job] = await waitFor(
      async () => {
        const queued = await jobs();
        return queued.length === 1 ? queued : undefined;
      },
      { what: 'the batch to be queued' },
    );
    const entry = job!.data.requests[0]!;
    expect(entry.objectKey).toMatch(
      new RegExp(`^${workspaceId}/\\d{4}/\\d{2}/\\d{2}/${input.requestId}\\.ogg$`),
    );
    // Names and keys only: no audio travels through Redis.
    expect(job!.data).toEqual({
      requests: [
        {
          requestId: input.requestId,
          workspaceId,
          environment: 'production',
          contentType: 'audio/ogg; codecs=opus',
          extension: 'ogg',
          objectKey: entry.objectKey,
          spoolFile,
        } satisfies AudioPersistenceEntry,
      ],
    });
    expect(job!.opts.attempts).toBe(5);
    expect(job!.opts.backoff).toEqual({ type: 'exponential', delay: 20 });

    startWorker();
    const location = await persistedLocation(input.requestId);

    expect(location).toBe(locationOf(entry.objectKey));
    expect((await readFile(join(rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
    // No temporary files beside the object.
    expect(await readdir(join(rootDir, entry.objectKey, '..'))).toEqual([`${input.requestId}.ogg`]);
    await waitFor(async () => (await queue.getJobState(job!.id!)) === 'completed', {
      what: 'the job to complete',
    });
    expect((await queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 1, skipped: 0 });
  });

  it('queues many requests as few jobs, stores them all and keeps no audio in Redis', async () => {
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const inputs = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        finishedRequest({ format: i % 2 === 0 ? 'pcm_24000' : 'aac_44100_128' }),
      ),
    );
    await Promise.all(inputs.map((input) => persistence.enqueue(input)));
    // The 64th request sent the first batch; close() sends the remaining 36.
    await persistence.close();

    const queued = await jobs();
    expect(queued.map((job) => job.data.requests.length).sort((a, b) => a - b)).toEqual([36, 64]);
    expect(
      queued.flatMap((job) => job.data.requests.map((entry) => entry.requestId)).sort(),
    ).toEqual(inputs.map((input) => input.requestId).sort());

    startWorker();
    for (const input of inputs) {
      const location = await persistedLocation(input.requestId);
      const entry = queued
        .flatMap((job) => job.data.requests)
        .find((e) => e.requestId === input.requestId)!;
      expect(location).toBe(locationOf(entry.objectKey));
      expect((await readFile(join(rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    }
    expect(await readdir(spoolDir)).toEqual([]);

    // Every key under the prefix is BullMQ's: no audio was parked beside the jobs.
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !key.startsWith(`${bullPrefix(prefix)}:`))).toEqual([]);
  });

  it('returns from enqueue without Redis, keeps the file, and the sweeper stores it once Redis answers', async () => {
    const deadQueue = createQueue<AudioPersistenceJobData>(QUEUE_NAMES.audioPersistence, {
      redisUrl: UNREACHABLE_REDIS_URL,
      redisPrefix: prefix,
      logger: pino({ level: 'silent' }),
    });
    closers.push(() => deadQueue.close());
    const persistence = producer({ batchMaxDelayMs: NEVER_MS, enqueueTimeoutMs: 300 }, deadQueue);
    const inputs = [await finishedRequest(), await finishedRequest(), await finishedRequest()];

    // Resolves once the file is written: no batch has even been tried yet.
    await persistence.enqueue(inputs[0]!);
    await persistence.enqueue(inputs[1]!);
    expect(log.lines.filter((line) => line.msg === QUEUE_FAILED)).toEqual([]);
    expect(persistence.pendingCount).toBe(2);

    await persistence.close();
    // After close() each request is sent alone at once; this one fails too.
    await persistence.enqueue(inputs[2]!);
    await persistence.flush();
    // One warning for the outage, not one per batch.
    const warnings = log.lines.filter((line) => line.msg === QUEUE_FAILED);
    expect(warnings).toEqual([expect.objectContaining({ level: 40, requests: 2 })]);
    expect((await readdir(spoolDir)).sort()).toEqual(
      inputs.map((input) => `${input.requestId}.ogg`).sort(),
    );

    startWorker();
    expect(await sweeper().sweep()).toEqual({ queued: 3, removed: 0 });
    for (const input of inputs) {
      const location = await persistedLocation(input.requestId);
      expect((await readFile(new URL(location!))).equals(input.audio)).toBe(true);
    }
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('skips a request whose spool file is gone and stores the rest of its batch', async () => {
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const inputs = [await finishedRequest(), await finishedRequest(), await finishedRequest()];
    for (const input of inputs) await persistence.enqueue(input);
    const missing = inputs[1]!;
    await rm(join(spoolDir, `${missing.requestId}.ogg`));
    await persistence.close();
    const [job] = await jobs();

    startWorker();
    await waitFor(async () => (await queue.getJobState(job!.id!)) === 'completed', {
      what: 'the batch to complete',
    });

    expect((await queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 2, skipped: 1 });
    for (const input of [inputs[0]!, inputs[2]!]) {
      const entry = job!.data.requests.find((e) => e.requestId === input.requestId)!;
      expect(await row(input.requestId)).toEqual({
        audio_persisted: 1,
        audio_location: locationOf(entry.objectKey),
      });
    }
    expect(await row(missing.requestId)).toEqual({ audio_persisted: 0, audio_location: null });
    expect(log.lines.filter((line) => line.msg === FILE_MISSING)).toEqual([
      expect.objectContaining({ level: 40, request_id: missing.requestId }),
    ]);
  });

  it('retries a batch whose store failed midway, storing each request once', async () => {
    // The second move of the first attempt fails: the first request is stored by then.
    const store = new FailingStore(disk, new Set([2]));
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const inputs = [await finishedRequest(), await finishedRequest()];
    for (const input of inputs) await persistence.enqueue(input);
    await persistence.close();
    const [job] = await jobs();

    startWorker(store);
    await waitFor(async () => (await queue.getJobState(job!.id!)) === 'completed', {
      what: 'the batch to complete',
    });

    // Attempt 1: moved, failed. Attempt 2: already moved (found in the store), moved.
    expect(store.putFileCalls).toBe(4);
    expect((await queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 2, skipped: 0 });
    expect(
      log.lines.filter((line) => line.msg === 'audio persistence attempt failed; retrying'),
    ).toEqual([expect.objectContaining({ level: 40, job_id: job!.id, attempts_made: 1 })]);
    for (const input of inputs) {
      const entry = job!.data.requests.find((e) => e.requestId === input.requestId)!;
      expect(await row(input.requestId)).toEqual({
        audio_persisted: 1,
        audio_location: locationOf(entry.objectKey),
      });
      expect((await readFile(join(rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    }
  });

  it('skips audio larger than maxBytes and says so at info', async () => {
    const persistence = producer({ maxBytes: 1000, batchMaxDelayMs: NEVER_MS });
    const tooLarge = await finishedRequest({ audioBytes: 1001 });
    const atLimit = await finishedRequest({ audioBytes: 1000 });

    await persistence.enqueue(tooLarge);
    await persistence.enqueue(atLimit);
    await persistence.close();

    expect(await readdir(spoolDir)).toEqual([`${atLimit.requestId}.ogg`]);
    const queued = await jobs();
    expect(queued.map((job) => job.data.requests.map((entry) => entry.requestId))).toEqual([
      [atLimit.requestId],
    ]);
    expect(log.lines.filter((line) => line.request_id === tooLarge.requestId)).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'audio persistence skipped: audio larger than the limit',
        size_bytes: 1001,
        max_bytes: 1000,
      }),
    ]);
  });

  it('queues the pending batch on close()', async () => {
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const input = await finishedRequest();
    await persistence.enqueue(input);
    expect(await jobs()).toEqual([]);

    await persistence.close();

    const queued = await jobs();
    expect(queued.map((job) => job.data.requests.map((entry) => entry.requestId))).toEqual([
      [input.requestId],
    ]);
    expect(await queue.getJobState(queued[0]!.id!)).toBe('waiting');
  });

  it('sweeps only old files: queues those of succeeded requests, removes the others', async () => {
    const succeeded = await finishedRequest({ format: 'pcm_24000' });
    const unknownId = uuidv7();
    await writeFile(join(spoolDir, `${succeeded.requestId}.pcm`), succeeded.audio);
    await writeFile(join(spoolDir, `${unknownId}.ogg`), randomBytes(100));
    await writeFile(join(spoolDir, `.${unknownId}.ogg.${uuidv7()}.tmp`), randomBytes(10));
    await writeFile(join(spoolDir, 'notes.txt'), 'not ours');

    // Young files are left alone: their batch is probably on its way.
    expect(await sweeper({ minAgeMs: 60_000 }).sweep()).toEqual({ queued: 0, removed: 0 });
    expect(await jobs()).toEqual([]);

    // Three minutes old now.
    const old = new Date(Date.now() - 3 * 60_000);
    for (const name of await readdir(spoolDir)) await utimes(join(spoolDir, name), old, old);
    expect(await sweeper({ minAgeMs: 120_000 }).sweep()).toEqual({ queued: 1, removed: 2 });

    expect((await readdir(spoolDir)).sort()).toEqual(
      [`${succeeded.requestId}.pcm`, 'notes.txt'].sort(),
    );
    const queued = await jobs();
    expect(queued.map((job) => job.data.requests)).toEqual([
      [
        {
          requestId: succeeded.requestId,
          workspaceId,
          environment: 'production',
          contentType: 'audio/pcm;rate=24000;channels=1',
          extension: 'pcm',
          objectKey: expect.stringMatching(
            new RegExp(`^${workspaceId}/\\d{4}/\\d{2}/\\d{2}/${succeeded.requestId}\\.pcm$`),
          ),
          spoolFile: `${succeeded.requestId}.pcm`,
        },
      ],
    ]);
    expect(log.lines.filter((line) => line.msg === 'audio persistence spool file removed')).toEqual(
      [
        expect.objectContaining({
          level: 30,
          request_id: unknownId,
          reason: 'no_succeeded_request',
        }),
      ],
    );

    startWorker();
    const location = await persistedLocation(succeeded.requestId);
    expect((await readFile(new URL(location!))).equals(succeeded.audio)).toBe(true);
  });

  it('stores a request queued both by its batch and by a sweeper, without a warning', async () => {
    const input = await finishedRequest();
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    await persistence.enqueue(input);
    await persistence.close();
    // The sweeper finds the file before any worker ran and queues it again. The file is
    // made a minute old: one written in the sweep's own millisecond is younger than a
    // minimum age of 0 (Date.now() is whole milliseconds, mtimes are not).
    const old = new Date(Date.now() - 60_000);
    await utimes(join(spoolDir, `${input.requestId}.ogg`), old, old);
    expect(await sweeper().sweep()).toEqual({ queued: 1, removed: 0 });
    const queued = await jobs();
    expect(queued).toHaveLength(2);

    startWorker();
    for (const job of queued) {
      await waitFor(async () => (await queue.getJobState(job.id!)) === 'completed', {
        what: `batch ${job.id} to complete`,
      });
    }

    const location = await persistedLocation(input.requestId);
    expect((await readFile(new URL(location!))).equals(input.audio)).toBe(true);
    expect(await readdir(spoolDir)).toEqual([]);
    expect(log.lines.filter((line) => line.level >= 40)).toEqual([]);
  });
});
