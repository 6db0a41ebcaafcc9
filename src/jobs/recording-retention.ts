import type { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import type { Logger } from '../observability/logger.ts';
import { RetentionSweep } from './retention-sweep.ts';

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
export class RecordingRetention extends RetentionSweep {
  constructor(options: RecordingRetentionOptions) {
    super({
      expireBefore: (cutoff, limit) => options.recordings.expireEndedBefore(cutoff, limit),
      retentionDays: options.retentionDays,
      what: 'session recordings',
      logger: options.logger,
      ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }
}
