import type { Queue } from 'bullmq';
import type { Environment } from '../app/config.ts';
import type { Logger } from '../observability/logger.ts';
import { audioObjectKey } from '../storage/audio-store.ts';
import {
  type AudioPersistenceEntry,
  type AudioPersistenceJobData,
  type AudioPersistenceJobOptions,
  addAudioPersistenceBatch,
} from './audio-persistence-job.ts';
import { Batcher } from './batcher.ts';
import { OutageLog } from './outage-log.ts';
import {
  type AudioFile,
  linkSpoolFile,
  spoolFileName,
  writeSpoolFile,
} from './persistence-spool.ts';
import { SpoolSpace } from './spool-space.ts';

/** One finished synthesis request whose audio should be kept. */
export interface AudioPersistenceRequest {
  requestId: string;
  workspaceId: string;
  environment: Environment;
  contentType: string;
  /** File extension without the dot, e.g. `ogg`. */
  extension: string;
  /** The audio, or a complete file holding it that stays until `enqueue` resolves. */
  audio: Buffer | AudioFile;
}

export interface AudioPersistenceOptions extends AudioPersistenceJobOptions {
  /** `AUDIO_SPOOL_DIR`: the folder the jobs process reads the audio from. */
  spoolDir: string;
  /** Larger audio is not persisted. */
  maxBytes: number;
  /**
   * `AUDIO_SPOOL_MIN_FREE_BYTES`: no spool file is written while the spool's file system
   * would be left with less free space than this. Default 0 (no floor).
   */
  minFreeBytes?: number;
  logger: Logger;
  /** A batch is queued once it holds this many requests. Default 64. */
  batchMaxRequests?: number;
  /** ...or this long after its first request, whichever comes first. Default 100. */
  batchMaxDelayMs?: number;
}

/**
 * Producer side of best-effort audio persistence, used by the api after the response (or
 * the WebSocket `finish`) has gone out. Each request's audio is written to a file in the
 * shared spool folder; requests are queued in batches, one BullMQ job per batch carrying
 * names and keys only, so Redis never holds audio and the jobs process pays one job per
 * batch. A batch Redis does not take stays on disk: the sweeper of the jobs process
 * ({@link PersistenceSweeper}) queues its files again later.
 *
 * @example
 * ```ts
 * const persistence = new AudioPersistence(queue, {
 *   spoolDir: '/data/persistence-spool', maxBytes: 32 * 1024 * 1024, logger,
 * });
 * void persistence.enqueue({ requestId, workspaceId, environment,
 *   contentType: 'audio/ogg; codecs=opus', extension: 'ogg', audio });
 * await persistence.close(); // at shutdown, before the queue closes
 * ```
 */
export class AudioPersistence {
  readonly #batcher: Batcher<AudioPersistenceEntry>;
  readonly #queueOutage: OutageLog;
  readonly #spoolOutage: OutageLog;
  readonly #space: SpoolSpace;
  readonly #spaceOutage: OutageLog;

  constructor(
    private readonly queue: Queue<AudioPersistenceJobData>,
    private readonly options: AudioPersistenceOptions,
  ) {
    this.#batcher = new Batcher({
      maxItems: options.batchMaxRequests ?? 64,
      maxDelayMs: options.batchMaxDelayMs ?? 100,
      send: (requests) => this.#send(requests),
    });
    this.#queueOutage = new OutageLog(options.logger, {
      failed: 'audio persistence batches not queued; their files wait in the spool for the sweeper',
      recovered: 'audio persistence batches queued again',
    });
    this.#spoolOutage = new OutageLog(options.logger, {
      failed: 'audio persistence spool not writable; audio is not persisted',
      recovered: 'audio persistence spool writable again',
    });
    this.#space = new SpoolSpace({
      dir: options.spoolDir,
      minFreeBytes: options.minFreeBytes ?? 0,
    });
    this.#spaceOutage = new OutageLog(options.logger, {
      failed:
        'audio persistence paused: the spool disk is at its free-space floor (AUDIO_SPOOL_MIN_FREE_BYTES); audio is not persisted',
      recovered: 'audio persistence resumed: the spool disk has room again',
    });
  }

  /**
   * Writes the audio to the spool (a file of audio is linked there, or copied when it is on
   * another file system) and adds the request to the current batch. Never
   * throws, never waits on Redis: it resolves once the file is written (or the request was
   * skipped, and logged: audio over `maxBytes`, a disk at its free-space floor, a spool
   * write failure).
   */
  async enqueue(request: AudioPersistenceRequest): Promise<void> {
    const { logger, maxBytes, spoolDir } = this.options;
    const { requestId, audio } = request;
    if (audio.byteLength > maxBytes) {
      logger.info(
        { request_id: requestId, size_bytes: audio.byteLength, max_bytes: maxBytes },
        'audio persistence skipped: audio larger than the limit',
      );
      return;
    }
    let entry: AudioPersistenceEntry;
    try {
      entry = {
        requestId,
        workspaceId: request.workspaceId,
        environment: request.environment,
        contentType: request.contentType,
        extension: request.extension,
        objectKey: audioObjectKey({
          workspaceId: request.workspaceId,
          requestId,
          extension: request.extension,
          createdAt: new Date(),
        }),
        spoolFile: spoolFileName(requestId, request.extension),
      };
    } catch (error) {
      logger.warn({ err: error, request_id: requestId }, 'audio persistence skipped');
      return;
    }
    const space = await this.#space.admit(audio.byteLength);
    if (!space.admitted) {
      this.#spaceOutage.failed(undefined, {
        request_id: requestId,
        dir: spoolDir,
        free_bytes: space.freeBytes,
        min_free_bytes: space.minFreeBytes,
      });
      return;
    }
    this.#spaceOutage.succeeded();
    try {
      if (Buffer.isBuffer(audio)) await writeSpoolFile(spoolDir, entry.spoolFile, audio);
      else await linkSpoolFile(spoolDir, entry.spoolFile, audio.file);
      this.#spoolOutage.succeeded();
    } catch (error) {
      this.#spoolOutage.failed(error, { request_id: requestId, dir: spoolDir });
      return;
    }
    this.#batcher.add(entry);
  }

  /** Requests written to the spool and waiting for their batch to be queued. */
  get pendingCount(): number {
    return this.#batcher.pendingCount;
  }

  /** Queues the pending batch now; resolves once every batch so far was queued or failed. */
  flush(): Promise<void> {
    return this.#batcher.flush();
  }

  /**
   * Queues the pending batch and waits for every batch in flight. Call before the queue
   * closes; a request enqueued afterwards is queued alone at once.
   */
  close(): Promise<void> {
    return this.#batcher.close();
  }

  async #send(requests: AudioPersistenceEntry[]): Promise<void> {
    try {
      await addAudioPersistenceBatch(this.queue, requests, this.options);
      this.#queueOutage.succeeded();
    } catch (error) {
      this.#queueOutage.failed(error, { requests: requests.length });
    }
  }
}
