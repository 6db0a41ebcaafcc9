/** What a {@link StoreOutage} reports to; the api wires a logger and a metric. */
export interface StoreOutageSink {
  /** Once when the first check of an outage fell back to the per-process limit. */
  outageStarted(limiter: string, error: unknown): void;
  /** Once when a check reached Redis again after an outage. */
  outageEnded(limiter: string, fallbacks: number): void;
  /** Every check decided by the per-process fallback. */
  fellBack(limiter: string): void;
}

/**
 * Tracks whether a Redis-backed limiter is in an outage, so the operator log gets one
 * warning when it starts and one line when it ends rather than one per request (a busy
 * api would otherwise write thousands of identical warnings a second).
 */
export class StoreOutage {
  #down = false;
  #fallbacks = 0;

  constructor(
    private readonly limiter: string,
    private readonly sink: StoreOutageSink,
  ) {}

  get down(): boolean {
    return this.#down;
  }

  /** A check could not reach Redis and was decided locally. */
  failed(error: unknown): void {
    this.#fallbacks += 1;
    this.sink.fellBack(this.limiter);
    if (this.#down) return;
    this.#down = true;
    this.sink.outageStarted(this.limiter, error);
  }

  /** A check reached Redis. */
  succeeded(): void {
    if (!this.#down) return;
    this.#down = false;
    const fallbacks = this.#fallbacks;
    this.#fallbacks = 0;
    this.sink.outageEnded(this.limiter, fallbacks);
  }
}
