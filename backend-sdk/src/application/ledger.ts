/**
 * What this process knows of the callbacks it received: which are running, which were
 * answered (and with what), which were cancelled. The worker sends pending callbacks again,
 * with the same `requestId`, when a backend rejoins; the ledger makes that delivery reach
 * the handler once: an answered request gets its answer again, a running one keeps running
 * and answers through the newest connection.
 */

import type { ResultBody } from './protocol.ts';

/** Where a callback's answers go: the connection and Agent that currently carry it. */
export interface ResultSink {
  /** Sends one `application.result`; resolves false when it could not be sent. */
  send(body: ResultBody): Promise<boolean>;
  /** True while the connection behind this sink is open. */
  readonly open: boolean;
}

/** One callback as the ledger tracks it. */
export interface LedgerEntry {
  readonly key: string;
  readonly controller: AbortController;
  state: 'running' | 'done' | 'cancelled';
  sink: ResultSink;
  /** The final answer, once sent (or attempted). */
  final?: ResultBody;
  /** The last progress, and whether it reached the worker. */
  lastProgress?: { body: ResultBody; delivered: boolean };
}

/**
 * A bounded record of callbacks, shared by every connection of the process that uses it
 * (by default the process-wide {@link defaultLedger}). Finished entries beyond `maxEntries`
 * are forgotten oldest first; running ones never are.
 *
 * @example
 * ```ts
 * // An isolated ledger, for a process that hosts unrelated backends.
 * const ledger = new RequestLedger({ maxEntries: 1_000 });
 * await ApplicationConnection.join(control, handlers, { ledger });
 * ```
 */
export class RequestLedger {
  readonly #entries = new Map<string, LedgerEntry>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** The entry of `requestId` in `room`, if this process has seen it. */
  get(room: string, requestId: string): LedgerEntry | undefined {
    return this.#entries.get(keyOf(room, requestId));
  }

  /** Records a new running callback answering through `sink`. */
  start(room: string, requestId: string, sink: ResultSink): LedgerEntry {
    const entry: LedgerEntry = {
      key: keyOf(room, requestId),
      controller: new AbortController(),
      state: 'running',
      sink,
    };
    this.#entries.set(entry.key, entry);
    this.#evict();
    return entry;
  }

  /** Forgets an entry (a callback abandoned by `close()`, to be run again after a rejoin). */
  forget(entry: LedgerEntry): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
  }

  /** Running entries whose current sink passes `test`. */
  running(test: (sink: ResultSink) => boolean): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.state === 'running' && test(entry.sink)) out.push(entry);
    }
    return out;
  }

  /** The callbacks of `room` still running, with their request ids. */
  runningIn(room: string): { requestId: string; entry: LedgerEntry }[] {
    const prefix = keyOf(room, '');
    return this.running(() => true)
      .filter((entry) => entry.key.startsWith(prefix))
      .map((entry) => ({ requestId: entry.key.slice(prefix.length), entry }));
  }

  /** How many entries are held (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    if (this.#entries.size <= this.#maxEntries) return;
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries) return;
      if (entry.state !== 'running') this.#entries.delete(key);
    }
  }
}

function keyOf(room: string, requestId: string): string {
  return `${room}\u0000${requestId}`;
}

/**
 * The ledger every connection uses unless given another: one per process, so a backend
 * that rejoins in the same process answers each re-sent callback once.
 *
 * @example
 * ```ts
 * defaultLedger.get(control.room, requestId)?.state; // 'running' | 'done' | 'cancelled'
 * ```
 */
export const defaultLedger = new RequestLedger();
