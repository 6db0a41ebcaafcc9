import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from '../observability/logger.ts';

/** `oneshot-<host>-<pid>-<uuid>.audio`: who wrote a file tells whether it can be stale. */
const FILE_NAME =
  /^oneshot-(.+)-(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.audio$/;
/**
 * A file of another host (a shared DATA_DIR) is only removed once older than this: its
 * writer may be alive, and no one-shot answer takes anywhere near a day.
 */
const FOREIGN_STALE_MS = 24 * 3600 * 1000;
const READ_CHUNK_BYTES = 64 * 1024;

export interface AudioSpoolOptions {
  /** Folder of the spool files; created when missing. */
  dir: string;
  /** Audio up to this many bytes stays in memory; beyond, the whole answer goes to a file. */
  memoryMaxBytes: number;
  logger: Logger;
}

/**
 * Where one-shot answers wait between synthesis and delivery. The audio must be complete
 * before the headers go out (a failure answers a JSON error, never truncated audio, and the
 * duration is a header), so a long answer would otherwise sit whole in memory: past
 * `memoryMaxBytes` it is written to a file instead and sent from there.
 */
export class AudioSpool {
  readonly #host = hostname().replace(/[^A-Za-z0-9.]/g, '_');

  constructor(private readonly options: AudioSpoolOptions) {}

  get dir(): string {
    return this.options.dir;
  }

  /**
   * Creates the folder and removes the files a crashed process left: this host's files of
   * a process that no longer runs (or of an earlier life with this pid), and other hosts'
   * files older than a day. Call once before serving: files of this pid are taken as stale.
   */
  async prepare(): Promise<number> {
    const { dir, logger } = this.options;
    await mkdir(dir, { recursive: true });
    let removed = 0;
    for (const name of await readdir(dir)) {
      const match = FILE_NAME.exec(name);
      if (!match) continue;
      const file = path.join(dir, name);
      const pid = Number(match[2]);
      const stale =
        match[1] === this.#host
          ? pid === process.pid || !processRuns(pid)
          : await stat(file).then(
              (info) => Date.now() - info.mtimeMs > FOREIGN_STALE_MS,
              () => false,
            );
      if (!stale) continue;
      await rm(file, { force: true });
      removed += 1;
    }
    if (removed > 0) logger.info({ dir, files: removed }, 'removed stale one-shot spool files');
    return removed;
  }

  /** Collects one answer: in memory up to the limit, then in a new file. */
  collector(): AudioCollector {
    const file = () =>
      path.join(this.options.dir, `oneshot-${this.#host}-${process.pid}-${randomUUID()}.audio`);
    return new AudioCollector(this.options.memoryMaxBytes, file, this.options.logger);
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The audio of one answer as it is produced. Exactly one of `finish` or `discard` ends it. */
export class AudioCollector {
  #chunks: Buffer[] = [];
  #bytes = 0;
  #path: string | undefined;
  #file: FileHandle | undefined;

  constructor(
    private readonly memoryMaxBytes: number,
    private readonly newPath: () => string,
    private readonly logger: Logger,
  ) {}

  get byteLength(): number {
    return this.#bytes;
  }

  /** Adds a piece; resolves once it is held (written, when spooling). */
  async push(chunk: Buffer): Promise<void> {
    this.#bytes += chunk.byteLength;
    if (this.#path === undefined) {
      if (this.#bytes <= this.memoryMaxBytes) {
        this.#chunks.push(chunk);
        return;
      }
      this.#path = this.newPath();
      this.#file = await open(this.#path, 'wx', 0o600);
      const held = this.#chunks;
      this.#chunks = [];
      for (const piece of held) await writeAll(this.#file, piece);
    }
    await writeAll(this.#file!, chunk);
  }

  /** The complete audio: a buffer, or the spooled file (which then owns the file). */
  async finish(): Promise<Buffer | SpooledAudio> {
    if (this.#path === undefined) {
      return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    }
    await this.#file!.close();
    this.#file = undefined;
    return new SpooledAudio(this.#path, this.#bytes, this.logger);
  }

  /** Drops what was collected; removes the file, if any. Never throws. */
  async discard(): Promise<void> {
    this.#chunks = [];
    await this.#file?.close().catch(() => {});
    this.#file = undefined;
    if (this.#path !== undefined) await removeFile(this.#path, this.logger);
  }
}

async function writeAll(file: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await file.write(chunk, offset);
    offset += bytesWritten;
  }
}

async function removeFile(file: string, logger: Logger): Promise<void> {
  await rm(file, { force: true }).catch((error: unknown) =>
    logger.warn({ err: error, file }, 'removing a one-shot spool file failed'),
  );
}

/**
 * A complete answer in a spool file. The file is removed once every hold on it is released:
 * the answer's own (taken by {@link stream}) and any `acquire`d one (persistence).
 */
export class SpooledAudio {
  #holds = 1;
  #streamed = false;

  constructor(
    readonly path: string,
    readonly byteLength: number,
    private readonly logger: Logger,
  ) {}

  /** Another hold on the file; call the returned function (once is enough) to release it. */
  acquire(): () => void {
    this.#holds += 1;
    return once(() => this.#release());
  }

  /**
   * The answer's bytes from the file. The answer's hold is released when the iteration ends,
   * fails or is returned, or when `signal` aborts, even if the iteration never started (a
   * client gone before the response was written).
   */
  stream(signal: AbortSignal): AsyncIterable<Buffer> {
    if (this.#streamed) throw new Error('a spooled answer is streamed once');
    this.#streamed = true;
    const done = once(() => {
      signal.removeEventListener('abort', done);
      this.#release();
    });
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
    const file = this.path;
    return {
      [Symbol.asyncIterator]: () => {
        const reader = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES })[
          Symbol.asyncIterator
        ]() as AsyncIterator<Buffer>;
        return {
          next: async () => {
            try {
              const result = await reader.next();
              if (result.done) done();
              return result;
            } catch (error) {
              done();
              throw error;
            }
          },
          return: async () => {
            await reader.return?.();
            done();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  #release(): void {
    this.#holds -= 1;
    if (this.#holds === 0) void removeFile(this.path, this.logger);
  }
}

function once(work: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    work();
  };
}
