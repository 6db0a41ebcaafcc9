import { randomBytes } from 'node:crypto';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import type { AudioPersistenceJobData } from '../../../src/jobs/audio-persistence-job.ts';
import { createQueue } from '../../../src/jobs/queues.ts';
import { spoolQueueName } from '../../../src/jobs/spool-queue.ts';
import { describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import {
  NEVER_MS,
  persistenceRig,
  QUEUE_FAILED,
  UNREACHABLE_REDIS_URL,
} from './persistence-rig.ts';

// The persistence sweeper: what it does with the spool files no batch brought to the
// worker (Redis was down, the api died), and with files that belong to no request.

describeEachDialect('the audio persistence sweeper on %s', (dialect) => {
  const rig = persistenceRig(dialect);
  const { finishedRequest, producer, startWorker, sweeper, persistedLocation, jobs } = rig;

  it('returns from enqueue without Redis, keeps the file, and the sweeper stores it once Redis answers', async () => {
    const deadQueue = createQueue<AudioPersistenceJobData>(spoolQueueName(rig.spoolDir), {
      redisUrl: UNREACHABLE_REDIS_URL,
      redisPrefix: rig.prefix,
      logger: pino({ level: 'silent' }),
    });
    rig.closers.push(() => deadQueue.close());
    const persistence = producer({ batchMaxDelayMs: NEVER_MS, enqueueTimeoutMs: 300 }, deadQueue);
    const inputs = [await finishedRequest(), await finishedRequest(), await finishedRequest()];

    // Resolves once the file is written: no batch has even been tried yet.
    await persistence.enqueue(inputs[0]!);
    await persistence.enqueue(inputs[1]!);
    expect(rig.log.lines.filter((line) => line.msg === QUEUE_FAILED)).toEqual([]);
    expect(persistence.pendingCount).toBe(2);

    await persistence.close();
    // After close() each request is sent alone at once; this one fails too.
    await persistence.enqueue(inputs[2]!);
    await persistence.flush();
    // One warning for the outage, not one per batch.
    const warnings = rig.log.lines.filter((line) => line.msg === QUEUE_FAILED);
    expect(warnings).toEqual([expect.objectContaining({ level: 40, requests: 2 })]);
    expect((await readdir(rig.spoolDir)).sort()).toEqual(
      inputs.map((input) => `${input.requestId}.ogg`).sort(),
    );

    startWorker();
    expect(await sweeper().sweep()).toEqual({ queued: 3, removed: 0 });
    for (const input of inputs) {
      const location = await persistedLocation(input.requestId);
      expect((await readFile(new URL(location!))).equals(input.audio)).toBe(true);
    }
    expect(await readdir(rig.spoolDir)).toEqual([]);
  });

  it('sweeps only old files: queues those of succeeded requests, removes the others', async () => {
    const succeeded = await finishedRequest({ format: 'pcm_24000' });
    const unknownId = uuidv7();
    await writeFile(join(rig.spoolDir, `${succeeded.requestId}.pcm`), succeeded.audio);
    await writeFile(join(rig.spoolDir, `${unknownId}.ogg`), randomBytes(100));
    await writeFile(join(rig.spoolDir, `.${unknownId}.ogg.${uuidv7()}.tmp`), randomBytes(10));
    await writeFile(join(rig.spoolDir, 'notes.txt'), 'not ours');

    // Young files are left alone: their batch is probably on its way.
    expect(await sweeper({ minAgeMs: 60_000 }).sweep()).toEqual({ queued: 0, removed: 0 });
    expect(await jobs()).toEqual([]);

    // Three minutes old now.
    const old = new Date(Date.now() - 3 * 60_000);
    for (const name of await readdir(rig.spoolDir))
      await utimes(join(rig.spoolDir, name), old, old);
    expect(await sweeper({ minAgeMs: 120_000 }).sweep()).toEqual({ queued: 1, removed: 2 });

    expect((await readdir(rig.spoolDir)).sort()).toEqual(
      [`${succeeded.requestId}.pcm`, 'notes.txt'].sort(),
    );
    const queued = await jobs();
    expect(queued.map((job) => job.data.requests)).toEqual([
      [
        {
          requestId: succeeded.requestId,
          workspaceId: rig.workspaceId,
          environment: 'production',
          contentType: 'audio/pcm;rate=24000;channels=1',
          extension: 'pcm',
          objectKey: expect.stringMatching(
            new RegExp(`^${rig.workspaceId}/\\d{4}/\\d{2}/\\d{2}/${succeeded.requestId}\\.pcm$`),
          ),
          spoolFile: `${succeeded.requestId}.pcm`,
        },
      ],
    ]);
    expect(
      rig.log.lines.filter((line) => line.msg === 'audio persistence spool file removed'),
    ).toEqual([
      expect.objectContaining({
        level: 30,
        request_id: unknownId,
        reason: 'no_succeeded_request',
      }),
    ]);

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
    await utimes(join(rig.spoolDir, `${input.requestId}.ogg`), old, old);
    expect(await sweeper().sweep()).toEqual({ queued: 1, removed: 0 });
    const queued = await jobs();
    expect(queued).toHaveLength(2);

    startWorker();
    for (const job of queued) {
      await waitFor(async () => (await rig.queue.getJobState(job.id!)) === 'completed', {
        what: `batch ${job.id} to complete`,
      });
    }

    const location = await persistedLocation(input.requestId);
    expect((await readFile(new URL(location!))).equals(input.audio)).toBe(true);
    expect(await readdir(rig.spoolDir)).toEqual([]);
    expect(rig.log.lines.filter((line) => line.level >= 40)).toEqual([]);
  });
});
