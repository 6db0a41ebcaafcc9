import { opendir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Queue } from 'bullmq';
import { getOutputFormatInfo, isOutputFormat } from '../../media/formats.ts';
import type { Ledger, SucceededRequest } from '../billing/ledger.ts';
import type { Logger } from '../observability/logger.ts';
import { audioFileExtension, audioObjectKey } from '../storage/audio-store.ts';
import {
  type AudioPersistenceEntry,
  type AudioPersistenceJobData,
  type AudioPersistenceJobOptions,
  addAudioPersistenceBatch,
} from './audio-persistence-job.ts';
import { OutageLog } from './outage-log.ts';
import { classifySpoolName } from './persistence-spool.ts';

/** Spool files looked up in the ledger at once. */
const LOOKUP_CHUNK = 256;

export interface PersistenceSweeperOptions extends AudioPersistenceJobOptions {
  /** `AUDIO_SPOOL_DIR` as mounted in this process. */
  spoolDir: string;
  /** The `audio-persistence` queue (producer side) the found files are queued on. */
  queue: Queue<AudioPersistenceJobData>;
  ledger: Pick<Ledger, 'succeededRequests'>;
  logger: Logger;
  /**
   * Files younger than this (by mtime) are left alone: their batch is most likely still on
   * its way. Default 120,000 (two minutes).
   */
  minAgeMs?: number;
  /** Pause between sweeps after {@link PersistenceSweeper.start}. Default 60,000. */
  intervalMs?: number;
  /** Requests per queued batch. Default 64. */
  batchMaxRequests?: number;
}

/** What one sweep did. */
export interface SweepResult {
  /** Spool files queued again, in batches. */
  queued: number;
  /** Spool files removed: no `succeeded` request, or a temporary file left by a crash. */
  removed: number;
}

interface Candidate {
  requestId: string;
  fileName: string;
}

/**
 * Finds spool files that no queued batch will store (an api crashed between writing a file
 * and queuing its batch, or Redis was down) and queues them again, their entries rebuilt
 * from the ledger. Files without a `succeeded` ledger row are removed. Racing a queued
 * batch or another sweeper is harmless: a request stored twice is moved once and marked
 * twice with the same location.
 *
 * @example
 * ```ts
 * const sweeper = new PersistenceSweeper({ spoolDir, queue, ledger, logger });
 * sweeper.start(); // now and every minute
 * await sweeper.close();
 * ```
 */
export class PersistenceSweeper {
  readonly #outage: OutageLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(private readonly options: PersistenceSweeperOptions) {
    this.#outage = new OutageLog(options.logger, {
      failed: 'audio persistence sweep could not queue batches; the files wait for the next sweep',
      recovered: 'audio persistence sweep queued batches again',
    });
  }

  /** Sweeps now and then every `intervalMs`; a sweep still running skips its next turn. */
  start(): void {
    const run = () => {
      if (this.#running) return;
      this.#running = this.sweep()
        .then(
          () => {},
          (error: unknown) =>
            this.options.logger.warn({ err: error }, 'audio persistence sweep failed'),
        )
        .finally(() => {
          this.#running = undefined;
        });
    };
    run();
    this.#timer = setInterval(run, this.options.intervalMs ?? 60_000);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One pass over the spool folder. Stops early when the queue refuses a batch. */
  async sweep(): Promise<SweepResult> {
    const { spoolDir, logger } = this.options;
    const cutoffMs = Date.now() - (this.options.minAgeMs ?? 120_000);
    const result: SweepResult = { queued: 0, removed: 0 };
    let dir: Awaited<ReturnType<typeof opendir>>;
    try {
      dir = await opendir(spoolDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
      throw error;
    }
    let candidates: Candidate[] = [];
    // Leaving the loop early (break, throw) closes the folder.
    for await (const dirent of dir) {
      if (!dirent.isFile()) continue;
      const name = classifySpoolName(dirent.name);
      if (name.kind === 'other') continue;
      const file = path.join(spoolDir, dirent.name);
      const modifiedMs = await stat(file).then(
        (info) => info.mtimeMs,
        () => undefined, // moved or removed meanwhile
      );
      if (modifiedMs === undefined || modifiedMs > cutoffMs) continue;
      if (name.kind === 'temporary') {
        // Written by an api that died mid-write: no complete file will ever have its name.
        await rm(file, { force: true });
        result.removed += 1;
        continue;
      }
      candidates.push({ requestId: name.requestId, fileName: dirent.name });
      if (candidates.length < LOOKUP_CHUNK) continue;
      if (!(await this.#requeue(candidates, result))) break;
      candidates = [];
    }
    if (candidates.length > 0) await this.#requeue(candidates, result);
    if (result.queued > 0 || result.removed > 0) {
      logger.info({ ...result, dir: spoolDir }, 'audio persistence spool swept');
    }
    return result;
  }

  /** Queues the candidates that have a succeeded request; false when the queue failed. */
  async #requeue(candidates: Candidate[], result: SweepResult): Promise<boolean> {
    const { ledger, logger, queue, spoolDir } = this.options;
    const rows = new Map(
      (await ledger.succeededRequests(candidates.map((c) => c.requestId))).map((row) => [
        row.requestId,
        row,
      ]),
    );
    const entries: AudioPersistenceEntry[] = [];
    for (const candidate of candidates) {
      const row = rows.get(candidate.requestId);
      const entry = row ? entryOf(row, candidate.fileName) : undefined;
      if (entry) {
        entries.push(entry);
        continue;
      }
      await rm(path.join(spoolDir, candidate.fileName), { force: true });
      result.removed += 1;
      logger.info(
        {
          request_id: candidate.requestId,
          reason: row ? 'invalid_ledger_row' : 'no_succeeded_request',
        },
        'audio persistence spool file removed',
      );
    }
    const perBatch = this.options.batchMaxRequests ?? 64;
    for (let start = 0; start < entries.length; start += perBatch) {
      const batch = entries.slice(start, start + perBatch);
      try {
        await addAudioPersistenceBatch(queue, batch, this.options);
        this.#outage.succeeded();
      } catch (error) {
        this.#outage.failed(error, { requests: batch.length });
        return false;
      }
      result.queued += batch.length;
    }
    return true;
  }
}

/** The batch entry of a spooled file, rebuilt from its ledger row; undefined if it cannot be. */
function entryOf(row: SucceededRequest, fileName: string): AudioPersistenceEntry | undefined {
  if (!isOutputFormat(row.outputFormat)) return undefined;
  const extension = audioFileExtension(row.outputFormat);
  try {
    return {
      requestId: row.requestId,
      workspaceId: row.workspaceId,
      environment: row.environment,
      contentType: getOutputFormatInfo(row.outputFormat).contentType,
      extension,
      objectKey: audioObjectKey({
        workspaceId: row.workspaceId,
        requestId: row.requestId,
        extension,
        createdAt: row.createdAt,
      }),
      spoolFile: fileName,
    };
  } catch {
    // A row whose parts make no valid key (never written by this service).
    return undefined;
  }
}
