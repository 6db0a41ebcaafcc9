import type { Logger } from '../observability/logger.ts';

export interface OutageLogMessages {
  /** Logged at warn when an operation fails after succeeding (or at the first failure). */
  failed: string;
  /** Logged at info when it succeeds again, with how many failures the outage saw. */
  recovered: string;
}

/**
 * One warning when a repeated operation starts failing and one line when it works again,
 * instead of one warning per failure: while Redis or a disk is down, a busy api would
 * otherwise write a warning for every request.
 *
 * @example
 * ```ts
 * const outage = new OutageLog(logger, { failed: 'batch not queued', recovered: 'batches queued again' });
 * try { await add(); outage.succeeded(); } catch (error) { outage.failed(error, { requests: 64 }); }
 * ```
 */
export class OutageLog {
  #failures = 0;

  constructor(
    private readonly logger: Logger,
    private readonly messages: OutageLogMessages,
  ) {}

  /** Whether the last attempt failed. */
  get down(): boolean {
    return this.#failures > 0;
  }

  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    this.#failures += 1;
    if (this.#failures === 1) this.logger.warn({ ...fields, err: error }, this.messages.failed);
  }

  succeeded(): void {
    if (this.#failures === 0) return;
    this.logger.info({ failures: this.#failures }, this.messages.recovered);
    this.#failures = 0;
  }
}
