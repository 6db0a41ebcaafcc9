import type { Logger } from '../observability/logger.ts';
import { BatchSweep } from './batch-sweep.ts';

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
export class RetentionSweep extends BatchSweep {
  constructor(options: RetentionSweepOptions) {
    const cutoff = () =>
      new Date((options.now?.() ?? new Date()).getTime() - options.retentionDays * DAY_MS);
    super({
      step: (limit) => options.expireBefore(cutoff(), limit),
      done: `${options.what} past their retention deleted`,
      what: `${options.what} retention`,
      logger: options.logger,
      ...(options.batch !== undefined ? { batch: options.batch } : {}),
      intervalMs: options.intervalMs ?? 60 * 60_000,
      atStart: true,
    });
  }
}
