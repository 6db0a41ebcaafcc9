import { mkdir, statfs } from 'node:fs/promises';

/** How long one reading of the file system's free space is trusted. */
const DEFAULT_REFRESH_MS = 1000;

export interface SpoolSpaceOptions {
  /** The spool folder; its file system is the one measured. */
  dir: string;
  /** `AUDIO_SPOOL_MIN_FREE_BYTES`: below this much free space nothing more is written. 0 turns the check off. */
  minFreeBytes: number;
  /** How long a reading is reused, default 1000 ms. */
  refreshMs?: number;
}

/** The answer to {@link SpoolSpace.admit}. */
export type SpoolSpaceDecision =
  | { admitted: true }
  | { admitted: false; freeBytes: number; minFreeBytes: number };

/**
 * Keeps the persistence spool from filling its disk. Before a file is written, `admit`
 * checks that the file system would still have `minFreeBytes` free after it: the disk
 * also holds the SQLite ledger, which must keep working when the jobs process is away and
 * the spool grows. One `statfs` call a second at most; the bytes admitted since the last
 * reading count as used, so a burst between readings cannot overshoot.
 *
 * @example
 * ```ts
 * const space = new SpoolSpace({ dir: '/data/persistence-spool', minFreeBytes: 1 << 30 });
 * if ((await space.admit(audio.byteLength)).admitted) await writeSpoolFile(dir, name, audio);
 * ```
 */
export class SpoolSpace {
  readonly #dir: string;
  readonly #minFreeBytes: number;
  readonly #refreshMs: number;
  #freeBytes: number | undefined;
  #readAt = 0;
  #admittedSinceRead = 0;
  #reading: Promise<void> | undefined;

  constructor(options: SpoolSpaceOptions) {
    this.#dir = options.dir;
    this.#minFreeBytes = options.minFreeBytes;
    this.#refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  }

  /**
   * Whether `bytes` more fit above the floor. Never rejects: when the free space cannot be
   * read, the write is admitted and its own failure (if any) is what gets reported.
   */
  async admit(bytes: number): Promise<SpoolSpaceDecision> {
    if (this.#minFreeBytes === 0) return { admitted: true };
    if (this.#freeBytes === undefined || Date.now() - this.#readAt >= this.#refreshMs) {
      this.#reading ??= this.#read().finally(() => {
        this.#reading = undefined;
      });
      await this.#reading;
    }
    if (this.#freeBytes === undefined) return { admitted: true };
    const freeBytes = this.#freeBytes - this.#admittedSinceRead;
    if (freeBytes - bytes < this.#minFreeBytes) {
      return {
        admitted: false,
        freeBytes: Math.max(0, freeBytes),
        minFreeBytes: this.#minFreeBytes,
      };
    }
    this.#admittedSinceRead += bytes;
    return { admitted: true };
  }

  async #read(): Promise<void> {
    try {
      this.#freeBytes = await freeBytesOf(this.#dir);
    } catch {
      this.#freeBytes = undefined;
    }
    this.#readAt = Date.now();
    this.#admittedSinceRead = 0;
  }
}

/** Bytes an unprivileged writer may still use on the file system holding `dir`. */
async function freeBytesOf(dir: string): Promise<number> {
  try {
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // The spool is made by its first write; measure where it will be.
    await mkdir(dir, { recursive: true });
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize;
  }
}
