import type { Logger } from '../observability/logger.ts';

const DAY_MS = 24 * 60 * 60_000;

export interface RetentionSweepOptions {
  /** Deletes up to `limit` records older than `cutoff`; returns how many it deleted. */
  expireBefore: (cutoff: Date, limit: number) => Promise<number>;
  /** Records older than this many days are deleted. */
  retentionDays: number;
  /** What is deleted, for the log lines (`session recordings`). */
  what: string;
  logger: Logger;
  /** Records deleted per batch; a sweep continues until a batch comes back short. */
  batch?: number;
  /** Pause between sweeps. Default one hour. */
  intervalMs?: number;
  now?: () => Date;
}

/**
 * Deletes records older than a retention period, at start and then hourly, in the jobs
 * process. Several jobs processes may run one at once when `expireBefore` deletes each
 * record once (a conditional delete).
 */
export class RetentionSweep {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(private readonly sweepOptions: RetentionSweepOptions) {}

  /** One sweep: every record past the period; returns how many were deleted. */
  async sweep(): Promise<number> {
    const { retentionDays, batch = 100, logger } = this.sweepOptions;
    const now = this.sweepOptions.now?.() ?? new Date();
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await this.sweepOptions.expireBefore(cutoff, batch);
      total += deleted;
      if (deleted < batch) break;
    }
    if (total > 0) {
      logger.info(
        { deleted: total, retention_days: retentionDays },
        `${this.sweepOptions.what} past their retention deleted`,
      );
    }
    return total;
  }

  start(): void {
    const run = () => {
      this.#running = this.sweep().catch((error: unknown) =>
        this.sweepOptions.logger.warn(
          { err: error },
          `${this.sweepOptions.what} retention sweep failed`,
        ),
      );
    };
    run();
    this.#timer = setInterval(run, this.sweepOptions.intervalMs ?? 60 * 60_000);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
