import type { Ledger, LedgerOutcome, LedgerStart } from '../../billing/ledger.ts';

/**
 * The ledger row of one streaming request: opened once, credit reserved as text arrives,
 * closed once with what was synthesized. Closing a row that never opened, or closing it
 * again, does nothing and charges nothing.
 */
export class StreamLedgerRow {
  #open = false;
  #closed = false;

  constructor(
    private readonly ledger: Ledger,
    private readonly requestId: string,
  ) {}

  /** Writes the row (see {@link Ledger.start}); `insufficient_credit` leaves it unopened. */
  async open(entry: LedgerStart): Promise<void> {
    await this.ledger.start(entry);
    this.#open = true;
  }

  /** Reserves the cost of `chars` more characters (see {@link Ledger.reserveMore}). */
  reserve(workspaceId: string, chars: number): Promise<void> {
    return this.ledger.reserveMore(this.requestId, workspaceId, chars);
  }

  /** Closes the row with its outcome; returns the charge in millicredits. */
  async close(outcome: LedgerOutcome): Promise<number> {
    if (!this.#open || this.#closed) return 0;
    this.#closed = true;
    return this.ledger.finish(this.requestId, outcome);
  }
}
