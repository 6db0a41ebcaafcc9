import type { LiveSessions } from '../agents/live-sessions.ts';
import type { Logger } from '../observability/logger.ts';

export interface LostSessionSweepOptions {
  sessions: Pick<LiveSessions, 'failSilent'>;
  /** Pause between looks; half the heartbeat timeout fails a lost session within 1.5 of it. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Fails the live sessions whose worker went silent, in the jobs process, so a backend that
 * waits for `agent_session.ended` hears of a crashed worker without polling. Several jobs
 * processes may run it: a session ends once.
 */
export class LostSessionSweep {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LostSessionSweepOptions) {}

  /** One look: fails every silent session; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const failed = await this.options.sessions.failSilent(100);
      total += failed;
      if (failed < 100) break;
    }
    if (total > 0) this.options.logger.warn({ failed: total }, 'live sessions lost their worker');
    return total;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#running = this.sweep().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'lost session sweep failed'),
      );
    }, this.options.intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
