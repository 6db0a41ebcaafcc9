import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AudioPersistenceEntry } from '../../../src/jobs/audio-persistence-job.ts';
import { bullPrefix } from '../../../src/jobs/queues.ts';
import { describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { FailingStore, FILE_MISSING, NEVER_MS, persistenceRig } from './persistence-rig.ts';

// Audio persistence from the api's producer through the spool and the queue to the jobs
// process's worker and the audio store (the sweeper's part: persistence-sweeper.test.ts).

describeEachDialect('audio persistence through the spool on %s', (dialect) => {
  const rig = persistenceRig(dialect);
  const { finishedRequest, producer, startWorker, row, persistedLocation, jobs, locationOf } = rig;

  it('stores the exact bytes at the object key and marks the row with its location', async () => {
    const input = await finishedRequest();
    await producer().enqueue(input);
    const spoolFile = `${input.requestId}.ogg`;
    // Spooled before it is queued; the batch goes out 100 ms after its first request.
    expect((await readFile(join(rig.spoolDir, spoolFile))).equals(input.audio)).toBe(true);
    const [job] = await waitFor(
      async () => {
        const queued = await jobs();
        return queued.length === 1 ? queued : undefined;
      },
      { what: 'the batch to be queued' },
    );
    const entry = job!.data.requests[0]!;
    expect(entry.objectKey).toMatch(
      new RegExp(`^${rig.workspaceId}/\\d{4}/\\d{2}/\\d{2}/${input.requestId}\\.ogg$`),
    );
    // Names and keys only: no audio travels through Redis.
    expect(job!.data).toEqual({
      requests: [
        {
          requestId: input.requestId,
          workspaceId: rig.workspaceId,
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
    expect((await readFile(join(rig.rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    expect(await readdir(rig.spoolDir)).toEqual([]);
    // No temporary files beside the object.
    expect(await readdir(join(rig.rootDir, entry.objectKey, '..'))).toEqual([
      `${input.requestId}.ogg`,
    ]);
    await waitFor(async () => (await rig.queue.getJobState(job!.id!)) === 'completed', {
      what: 'the job to complete',
    });
    expect((await rig.queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 1, skipped: 0 });
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
      expect((await readFile(join(rig.rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    }
    expect(await readdir(rig.spoolDir)).toEqual([]);

    // Every key under the rig.prefix is BullMQ's: no audio was parked beside the jobs.
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await rig.redis.scan(cursor, 'MATCH', `${rig.prefix}:*`, 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !key.startsWith(`${bullPrefix(rig.prefix)}:`))).toEqual([]);
  });

  it('skips a request whose spool file is gone and stores the rest of its batch', async () => {
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const inputs = [await finishedRequest(), await finishedRequest(), await finishedRequest()];
    for (const input of inputs) await persistence.enqueue(input);
    const missing = inputs[1]!;
    await rm(join(rig.spoolDir, `${missing.requestId}.ogg`));
    await persistence.close();
    const [job] = await jobs();

    startWorker();
    await waitFor(async () => (await rig.queue.getJobState(job!.id!)) === 'completed', {
      what: 'the batch to complete',
    });

    expect((await rig.queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 2, skipped: 1 });
    for (const input of [inputs[0]!, inputs[2]!]) {
      const entry = job!.data.requests.find((e) => e.requestId === input.requestId)!;
      expect(await row(input.requestId)).toEqual({
        audio_persisted: 1,
        audio_location: locationOf(entry.objectKey),
      });
    }
    expect(await row(missing.requestId)).toEqual({ audio_persisted: 0, audio_location: null });
    expect(rig.log.lines.filter((line) => line.msg === FILE_MISSING)).toEqual([
      expect.objectContaining({ level: 40, request_id: missing.requestId }),
    ]);
  });

  it('retries a batch whose store failed midway, storing each request once', async () => {
    // The second move of the first attempt fails: the first request is stored by then.
    const store = new FailingStore(rig.disk, new Set([2]));
    const persistence = producer({ batchMaxDelayMs: NEVER_MS });
    const inputs = [await finishedRequest(), await finishedRequest()];
    for (const input of inputs) await persistence.enqueue(input);
    await persistence.close();
    const [job] = await jobs();

    startWorker(store);
    await waitFor(async () => (await rig.queue.getJobState(job!.id!)) === 'completed', {
      what: 'the batch to complete',
    });

    // Attempt 1: moved, failed. Attempt 2: already moved (found in the store), moved.
    expect(store.putFileCalls).toBe(4);
    expect((await rig.queue.getJob(job!.id!))?.returnvalue).toEqual({ stored: 2, skipped: 0 });
    expect(
      rig.log.lines.filter((line) => line.msg === 'audio persistence attempt failed; retrying'),
    ).toEqual([expect.objectContaining({ level: 40, job_id: job!.id, attempts_made: 1 })]);
    for (const input of inputs) {
      const entry = job!.data.requests.find((e) => e.requestId === input.requestId)!;
      expect(await row(input.requestId)).toEqual({
        audio_persisted: 1,
        audio_location: locationOf(entry.objectKey),
      });
      expect((await readFile(join(rig.rootDir, entry.objectKey))).equals(input.audio)).toBe(true);
    }
  });

  it('links audio handed over as a file into the spool, and stores it after the file is gone', async () => {
    const input = await finishedRequest({ audioBytes: 256 * 1024 });
    // A spooled one-shot answer on the same file system as the spool.
    const source = join(rig.rootDir, `answer-${input.requestId}.audio`);
    await writeFile(source, input.audio);
    await producer().enqueue({
      ...input,
      audio: { file: source, byteLength: input.audio.byteLength },
    });
    const spooled = join(rig.spoolDir, `${input.requestId}.ogg`);
    // One file under two names: nothing was copied.
    expect((await stat(spooled)).ino).toBe((await stat(source)).ino);
    // The answer's file goes as soon as the answer is sent.
    await rm(source);
    startWorker();
    const location = await persistedLocation(input.requestId);
    expect((await readFile(fileURLToPath(location))).equals(input.audio)).toBe(true);
    expect(await readdir(rig.spoolDir)).toEqual([]);
  });

  it('skips audio larger than maxBytes and says so at info', async () => {
    const persistence = producer({ maxBytes: 1000, batchMaxDelayMs: NEVER_MS });
    const tooLarge = await finishedRequest({ audioBytes: 1001 });
    const atLimit = await finishedRequest({ audioBytes: 1000 });

    await persistence.enqueue(tooLarge);
    await persistence.enqueue(atLimit);
    await persistence.close();

    expect(await readdir(rig.spoolDir)).toEqual([`${atLimit.requestId}.ogg`]);
    const queued = await jobs();
    expect(queued.map((job) => job.data.requests.map((entry) => entry.requestId))).toEqual([
      [atLimit.requestId],
    ]);
    expect(rig.log.lines.filter((line) => line.request_id === tooLarge.requestId)).toEqual([
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
    expect(await rig.queue.getJobState(queued[0]!.id!)).toBe('waiting');
  });
});
