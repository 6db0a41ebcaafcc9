import type { SessionRecordings } from '../agents/session-recordings.ts';
import type { Logger } from '../observability/logger.ts';

const DAY_MS = 24 * 60 * 60_000;
/** Recordings deleted per statement batch; sweeps continue until none is left. */
const BATCH = 100;

export interface RecordingRetentionOptions {
  recordings: Pick<SessionRecordings, 'expireEndedBefore'>;
  /** `RECORDING_RETENTION_DAYS`: recordings of sessions ended longer ago are deleted. */
  retentionDays: number;
  logger: Logger;
  /** Pause between sweeps. Default one hour. */
  intervalMs?: number;
  now?: () => Date;
}

/**
 * Deletes session recordings older than the retention period, at start and then hourly,
 * in the jobs process. Several jobs processes may run it at once: each recording is
 * deleted by one of them.
 */
export class RecordingRetention {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RecordingRetentionOptions) {}

  /** One sweep: every recording past the period; returns how many were deleted. */
  async sweep(): Promise<number> {
    const now = this.options.now?.() ?? new Date();
    const cutoff = new Date(now.getTime() - this.options.retentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const deleted = await this.options.recordings.expireEndedBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) {
      this.options.logger.info(
        { deleted: total, retention_days: this.options.retentionDays },
        'session recordings past their retention deleted',
      );
    }
    return total;
  }

  start(): void {
    const run = () => {
      this.#running = this.sweep().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'session recording retention sweep failed'),
      );
    };
    run();
    this.#timer = setInterval(run, this.options.intervalMs ?? 60 * 60_000);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
