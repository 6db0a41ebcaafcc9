import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { v7 as uuidv7 } from 'uuid';
import { getOutputFormatInfo, type OutputFormat } from '../../../media/formats.ts';
import { Ledger } from '../../../src/billing/ledger.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { AudioPersistenceJobData } from '../../../src/jobs/audio-persistence-job.ts';
import {
  AudioPersistence,
  type AudioPersistenceOptions,
  type AudioPersistenceRequest,
} from '../../../src/jobs/audio-persistence-producer.ts';
import { createAudioPersistenceWorker } from '../../../src/jobs/audio-persistence-worker.ts';
import {
  PersistenceSweeper,
  type PersistenceSweeperOptions,
} from '../../../src/jobs/persistence-sweeper.ts';
import { createQueue } from '../../../src/jobs/queues.ts';
import { spoolQueueName } from '../../../src/jobs/spool-queue.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { type AudioStore, audioFileExtension } from '../../../src/storage/audio-store.ts';
import { LocalDiskAudioStore } from '../../../src/storage/local-disk-store.ts';
import { afterAll, afterEach, beforeAll, beforeEach } from '../../fixtures/index.ts';
import type { TestDatabase, TestDialect } from '../../helpers/database.ts';
import { captureLogger } from '../../helpers/log-capture.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import { waitFor } from '../../helpers/wait.ts';

// What the audio persistence tests share: a database with a funded workspace and its
// ledger, and for each test a fresh spool folder, audio store folder, Redis prefix and
// queue, with the producer, worker and sweeper made against them.

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Nothing listens here: connections are refused. */
export const UNREACHABLE_REDIS_URL = 'redis://127.0.0.1:1';
/** Long enough that no batch is sent by its timer while a test runs: only by size or close(). */
export const NEVER_MS = 10 * 60_000;

export const QUEUE_FAILED =
  'audio persistence batches not queued; their files wait in the spool for the sweeper';
export const FILE_MISSING =
  'audio persistence skipped: neither the spool file nor the object exists';

/** The local disk store, whose `putFile` fails on the calls numbered in `failOn` (1-based). */
export class FailingStore implements AudioStore {
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

  delete(objectKey: string) {
    return this.inner.delete(objectKey);
  }

  list(prefix: string) {
    return this.inner.list(prefix);
  }
}

/**
 * Registers the hooks of the audio persistence tests in the calling `describe` and returns
 * their fixtures, which are fresh in each test.
 */
export function persistenceRig(dialect: TestDialect) {
  let database: TestDatabase;
  // The fixtures, assigned by the hooks below; the helpers are added to the same object.
  const state = {} as {
    handle: DatabaseHandle;
    ledger: Ledger;
    workspaceId: string;
    prefix: string;
    spoolDir: string;
    rootDir: string;
    redis: Redis;
    queue: Queue<AudioPersistenceJobData>;
    log: ReturnType<typeof captureLogger>;
    disk: LocalDiskAudioStore;
  };
  const closers: Array<() => Promise<unknown> | unknown> = [];

  beforeAll(async ({ databases }) => {
    database = await databases.empty(dialect);
    state.handle = await openTestDatabase(database);
    state.ledger = new Ledger(state.handle.db, 'audio-persistence-test');
    state.workspaceId = (await seedWorkspace(state.handle)).workspaceId;
  });

  afterAll(async () => {
    await state.handle?.close();
  });

  beforeEach(async () => {
    state.prefix = `test-${randomBytes(4).toString('hex')}`;
    state.spoolDir = await mkdtemp(join(tmpdir(), 'awp-spool-'));
    state.rootDir = await mkdtemp(join(tmpdir(), 'awp-audio-'));
    state.log = captureLogger();
    state.redis = createRedis(REDIS_URL);
    state.queue = createQueue<AudioPersistenceJobData>(spoolQueueName(state.spoolDir), {
      redisUrl: REDIS_URL,
      redisPrefix: state.prefix,
      logger: state.log.logger,
    });
    state.disk = new LocalDiskAudioStore(state.rootDir);
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await state.queue.close();
    const keys = await state.redis.keys(`${state.prefix}:*`);
    if (keys.length > 0) await state.redis.del(...keys);
    state.redis.disconnect();
    await rm(state.spoolDir, { recursive: true, force: true });
    await rm(state.rootDir, { recursive: true, force: true });
  });

  const row = (requestId: string) =>
    state.handle.db
      .selectFrom('synthesis_requests')
      .select(['audio_persisted', 'audio_location'])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();

  return Object.assign(state, {
    /** Closed after the test, last first. */
    closers,

    /** A request that succeeded in the ledger, with audio to persist. */
    async finishedRequest(options: { format?: OutputFormat; audioBytes?: number } = {}) {
      const format = options.format ?? 'opus_48000_64';
      const requestId = uuidv7();
      await state.ledger.start({
        requestId,
        auditId: `aud_${uuidv7()}`,
        workspaceId: state.workspaceId,
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
      await state.ledger.finish(requestId, {
        status: 'succeeded',
        charsSynthesized: 10,
        providerAudioMs: 500,
        encodedDurationMs: 500,
      });
      return {
        requestId,
        workspaceId: state.workspaceId,
        environment: 'production' as const,
        contentType: getOutputFormatInfo(format).contentType,
        extension: audioFileExtension(format),
        audio: randomBytes(options.audioBytes ?? 4096),
      } satisfies AudioPersistenceRequest;
    },

    /** The api's side: a producer spooling into `spoolDir` and queueing on `target`. */
    producer(options: Partial<AudioPersistenceOptions> = {}, target = state.queue) {
      const persistence = new AudioPersistence(target, {
        spoolDir: state.spoolDir,
        maxBytes: 1024 * 1024,
        logger: state.log.logger,
        backoffDelayMs: 20,
        ...options,
      });
      closers.push(() => persistence.close());
      return persistence;
    },

    /** The jobs process's side: a worker moving spool files into `store`. */
    startWorker(store: AudioStore = state.disk) {
      const worker = createAudioPersistenceWorker({
        connectionUrl: REDIS_URL,
        prefix: state.prefix,
        spoolDir: state.spoolDir,
        store,
        onPersisted: (stored) => state.ledger.markAudioPersistedMany(stored),
        logger: state.log.logger,
        concurrency: 2,
      });
      closers.push(() => worker.close());
      return worker;
    },

    sweeper(options: Partial<PersistenceSweeperOptions> = {}) {
      return new PersistenceSweeper({
        spoolDir: state.spoolDir,
        queue: state.queue,
        ledger: state.ledger,
        logger: state.log.logger,
        minAgeMs: 0,
        backoffDelayMs: 20,
        ...options,
      });
    },

    /** The persistence columns of a request's ledger row. */
    row,

    /** The stored location of `requestId`, once its row is marked. */
    persistedLocation(requestId: string) {
      return waitFor(
        async () => {
          const current = await row(requestId);
          return Number(current.audio_persisted) === 1 ? current.audio_location : undefined;
        },
        { what: `the audio of ${requestId} to be persisted`, intervalMs: 50 },
      );
    },

    /** Every job of the queue, in any state. */
    async jobs(): Promise<Job<AudioPersistenceJobData>[]> {
      return state.queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
    },

    /** The `file://` location the store gives `objectKey`. */
    locationOf(objectKey: string) {
      return pathToFileURL(join(state.rootDir, objectKey)).href;
    },
  });
}
