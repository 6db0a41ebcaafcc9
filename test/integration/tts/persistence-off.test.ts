import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { AudioPersistenceJobData } from '../../../src/jobs/audio-persistence-job.ts';
import { createQueue, QUEUE_NAMES } from '../../../src/jobs/queues.ts';
import { spoolQueueName } from '../../../src/jobs/spool-queue.ts';
import { createRedis } from '../../../src/redis/client.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { audioOf, openStream, streamRequest, streamUrl } from '../../helpers/stream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICE = NATIVE_VOICES[0]!.id;
const FORMAT = 'opus_48000_64';
const SPOOL_ABOVE_BYTES = 64 * 1024;

/** Every file under `dir` (recursively); none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * With AUDIO_PERSISTENCE off, a one-shot and a stream leave nothing behind for storage: no
 * job, no spool file, no stored file, no stored location on the ledger row. The same
 * requests on a server with persistence on do leave all of them, so each check can fail.
 */
describeEachDialect('audio persistence on and off on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let on: RunningServer;
  let off: RunningServer;
  let redis: Redis;
  const queues: Queue<AudioPersistenceJobData>[] = [];

  beforeAll(
    async ({ databases }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const env = { TTS_RATE_LIMIT_PER_MINUTE: '0' };
      [on, off] = await Promise.all([
        startServer({
          database,
          env: {
            ...env,
            AUDIO_PERSISTENCE: 'true',
            // Long answers wait in a spool file; persistence reads them from there.
            ONESHOT_MEMORY_MAX_BYTES: String(SPOOL_ABOVE_BYTES),
          },
        }),
        startServer({ database, env: { ...env, AUDIO_PERSISTENCE: 'false' } }),
      ]);
      redis = createRedis(REDIS_URL);
    },
    budget({ servers: 2 }),
  );

  afterAll(async () => {
    if (process.env.DEBUG_SERVER) console.log(on?.output().slice(-6000));
    await Promise.all(queues.map((queue) => queue.close()));
    redis?.disconnect();
    await Promise.all([on?.stop(), off?.stop()]);
  });

  const queueOf = (server: RunningServer) => {
    const queue = createQueue<AudioPersistenceJobData>(spoolQueueName(persistenceSpoolDir()), {
      redisUrl: REDIS_URL,
      redisPrefix: server.env.REDIS_PREFIX!,
      logger: pino({ level: 'silent' }),
    });
    queues.push(queue);
    return queue;
  };

  const oneShotAudio = async (server: RunningServer, text: string, format = FORMAT) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: VOICE, output_format: format }),
    });
    expect(response.status).toBe(200);
    const audio = Buffer.from(await response.arrayBuffer());
    expect(audio.byteLength).toBeGreaterThan(1000);
    return { requestId: response.headers.get('x-request-id')!, audio, headers: response.headers };
  };
  const oneShot = async (server: RunningServer) =>
    (await oneShotAudio(server, 'Kept or not kept.')).requestId;

  const streamAudio = async (
    server: RunningServer,
    texts: (string | { flush: true })[],
    format: string = FORMAT,
  ) => {
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    const { events } = await streamRequest(
      client,
      { voice_id: VOICE, output_format: format },
      texts,
    );
    expect(events.at(-1)!.event).toBe('finish');
    expect(events.some((e) => e.event === 'audio')).toBe(true);
    return { requestId: events[0]!.request_id as string, audio: audioOf(events) };
  };
  const stream = async (server: RunningServer) =>
    (await streamAudio(server, ['Streamed and perhaps stored.'])).requestId;

  /** The stored file of `requestId`, once its persistence job has finished. */
  const storedAudio = async (requestId: string) => {
    const stored = await waitFor(
      async () => {
        const current = await row(requestId);
        return Number(current.audio_persisted) === 1 ? current : undefined;
      },
      { what: `the audio of ${requestId} to be persisted`, intervalMs: 100 },
    );
    return readFile(fileURLToPath(stored.audio_location!));
  };

  const row = (requestId: string) =>
    handle.db
      .selectFrom('synthesis_requests')
      .select(['status', 'audio_persisted', 'audio_location'])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();

  const audioDir = () => path.join(database.dataDir, 'audio');
  const persistenceSpoolDir = () => path.join(database.dataDir, 'persistence-spool');

  it('persists a one-shot and a stream when on', async () => {
    const ids = [await oneShot(on), await stream(on)];
    const onQueue = queueOf(on);
    for (const requestId of ids) {
      const stored = await waitFor(
        async () => {
          const current = await row(requestId);
          return Number(current.audio_persisted) === 1 ? current : undefined;
        },
        { what: `the audio of ${requestId} to be persisted`, intervalMs: 100 },
      );
      expect(stored.status).toBe('succeeded');
      expect(stored.audio_location).toContain(requestId);
      expect((await filesUnder(audioDir())).filter((f) => f.includes(requestId))).toHaveLength(1);
      // The row is marked by the job's processor; BullMQ completes the batch's job just after.
      await waitFor(
        async () => {
          const completed = await onQueue.getJobs(['completed']);
          return completed.some((job) =>
            (job.data as AudioPersistenceJobData).requests.some((e) => e.requestId === requestId),
          );
        },
        { what: `the persistence job of ${requestId} to complete`, intervalMs: 50 },
      );
    }
  });

  it('stores exactly the bytes that were delivered, one-shot and streamed, in each format', async () => {
    for (const format of ['pcm_24000', 'opus_48000_64', 'aac_44100_128'] as const) {
      const answer = await oneShotAudio(on, `Delivered once, stored the same, ${format}.`, format);
      expect((await storedAudio(answer.requestId)).equals(answer.audio)).toBe(true);
      // A stream of several segments (a flush between them) is stored as the
      // concatenation of its audio events, in `seq` order.
      const streamed = await streamAudio(
        on,
        [`First part in ${format}.`, { flush: true }, 'Second part after a flush.'],
        format,
      );
      const stored = await storedAudio(streamed.requestId);
      expect(stored.byteLength).toBe(streamed.audio.byteLength);
      expect(stored.equals(streamed.audio)).toBe(true);
    }
  });

  it('persists a one-shot answered from a spool file, and removes the file', async () => {
    const text = 'A long answer goes to a file first, then to storage. '.repeat(12);
    const { requestId, audio, headers } = await oneShotAudio(on, text, 'pcm_24000');
    expect(audio.byteLength).toBeGreaterThan(4 * SPOOL_ABOVE_BYTES);
    // Sent from the file: no length up front.
    expect(headers.get('transfer-encoding')).toBe('chunked');
    const stored = await waitFor(
      async () => {
        const current = await row(requestId);
        return Number(current.audio_persisted) === 1 ? current : undefined;
      },
      { what: `the audio of ${requestId} to be persisted`, intervalMs: 100 },
    );
    expect((await readFile(fileURLToPath(stored.audio_location!))).equals(audio)).toBe(true);
    await waitFor(
      async () => (await filesUnder(path.join(database.dataDir, 'spool'))).length === 0,
      {
        what: 'the spool folder to empty',
      },
    );
  });

  it('enqueues nothing, spools nothing and stores no file for a one-shot and a stream when off', async () => {
    const ids = [await oneShot(off), await stream(off)];
    // Queue the same kind of work on the "on" server after them: once its audio is stored,
    // anything the "off" server had handed to storage would have had as long to show up.
    const marker = await oneShot(on);
    await waitFor(async () => Number((await row(marker)).audio_persisted) === 1, {
      what: `the audio of ${marker} to be persisted`,
      intervalMs: 100,
    });
    const prefix = off.env.REDIS_PREFIX!;
    expect(await redis.keys(`${prefix}:bull:${QUEUE_NAMES.audioPersistence}*`)).toEqual([]);
    for (const requestId of ids) {
      const current = await row(requestId);
      expect(current.status).toBe('succeeded');
      expect(Number(current.audio_persisted)).toBe(0);
      expect(current.audio_location).toBeNull();
      expect(
        (await filesUnder(persistenceSpoolDir())).filter((f) => f.includes(requestId)),
      ).toEqual([]);
      expect((await filesUnder(audioDir())).filter((f) => f.includes(requestId))).toEqual([]);
    }
    const counts = await queueOf(off).getJobCounts();
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(0);
  });
});
