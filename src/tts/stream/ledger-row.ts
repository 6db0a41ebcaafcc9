import type { Ledger, LedgerOutcome, LedgerStart } from '../../billing/ledger.ts';
import { MAX_STREAM_TOTAL_TEXT_CHARS } from '../schemas.ts';
import { codePointLength } from '../tags.ts';
import type { ClientEvent } from './protocol.ts';

/**
 * The ledger row of one streaming request: opened once, credit reserved as text arrives,
 * closed once with what was synthesized. Closing a row that never opened, or closing it
 * again, does nothing and charges nothing.
 *
 * Text events that arrived together are reserved together: the row opens with the credit
 * of the text already queued behind `start`, and a text event reserves for the text events
 * queued behind it too, so a burst of events costs one transaction, not one each. The
 * amounts are the same (the row's reservation is priced on its total characters), and
 * credit reserved for events never handled is refunded when the row closes.
 */
export class StreamLedgerRow {
  #open = false;
  #closed = false;
  /** Characters of text events not handled yet whose credit is already reserved. */
  #reservedAheadChars = 0;

  constructor(
    private readonly ledger: Ledger,
    private readonly requestId: string,
  ) {}

  /**
   * Writes the row (see {@link Ledger.start}) with the credit of the text events `waiting`
   * behind `start`; `insufficient_credit` leaves it unopened.
   */
  async open(
    entry: Omit<LedgerStart, 'reserveChars'>,
    waiting: readonly ClientEvent[],
  ): Promise<void> {
    const reserveChars = queuedTextChars(waiting, 0);
    await this.ledger.start({ ...entry, reserveChars });
    this.#open = true;
    this.#reservedAheadChars = reserveChars;
  }

  /**
   * Reserves the cost of a text event of `chars` characters, `received` in all with it
   * (see {@link Ledger.reserveMore}), unless an earlier reservation covered it; the text
   * events `waiting` behind it are reserved in the same transaction.
   */
  async reserveText(
    workspaceId: string,
    chars: number,
    received: number,
    waiting: readonly ClientEvent[],
  ): Promise<void> {
    if (this.#reservedAheadChars >= chars) {
      this.#reservedAheadChars -= chars;
      return;
    }
    const ahead = queuedTextChars(waiting, received);
    await this.ledger.reserveMore(this.requestId, workspaceId, chars + ahead);
    this.#reservedAheadChars = ahead;
  }

  /** Closes the row with its outcome; returns the charge in millicredits. */
  async close(outcome: LedgerOutcome): Promise<number> {
    if (!this.#open || this.#closed) return 0;
    this.#closed = true;
    return this.ledger.finish(this.requestId, outcome);
  }
}

/**
 * The characters of the `text` events at the head of `queued`, as far as the request's
 * total stays within its limit after `received` characters (the event that would pass it
 * is refused when handled, and reserves nothing).
 */
export function queuedTextChars(queued: readonly ClientEvent[], received: number): number {
  let chars = 0;
  for (const event of queued) {
    if (event.event !== 'text') break;
    const next = chars + codePointLength(event.text);
    if (received + next > MAX_STREAM_TOTAL_TEXT_CHARS) break;
    chars = next;
  }
  return chars;
}
