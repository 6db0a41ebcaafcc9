import type { Logger } from '../observability/logger.ts';

export interface BatchSweepOptions {
  /** Handles up to `limit` records; returns how many it handled. */
  step: (limit: number) => Promise<number>;
  /** What is handled, for the log lines (`session recordings past their retention deleted`). */
  done: string;
  /** What a failed sweep is called in its log line. */
  what: string;
  logger: Logger;
  /** Records per step; a sweep goes on until a step comes back short. Default 100. */
  batch?: number;
  intervalMs: number;
  /** Sweep once at start too. */
  atStart?: boolean;
  /** Level of the line that says how many a sweep handled. Default info. */
  level?: 'info' | 'warn';
}

/**
 * A sweep the jobs process runs every `intervalMs` in batches: retention deletions, lost
 * sessions. Several jobs processes may run one at once when each step handles a record
 * once (conditional updates and deletes).
 */
export class BatchSweep {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(private readonly batchOptions: BatchSweepOptions) {}

  /** One sweep: every record there is; returns how many were handled. */
  async sweep(): Promise<number> {
    const { step, batch = 100, logger, level = 'info' } = this.batchOptions;
    let total = 0;
    for (;;) {
      const handled = await step(batch);
      total += handled;
      if (handled < batch) break;
    }
    if (total > 0) logger[level]({ count: total }, this.batchOptions.done);
    return total;
  }

  start(): void {
    const run = () => {
      this.#running = this.sweep().catch((error: unknown) =>
        this.batchOptions.logger.warn({ err: error }, `${this.batchOptions.what} sweep failed`),
      );
    };
    if (this.batchOptions.atStart) run();
    this.#timer = setInterval(run, this.batchOptions.intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
