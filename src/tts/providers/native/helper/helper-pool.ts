import { WaitQueue, type WaitQueueOptions } from '../../wait-queue.ts';
import { EngineHelper } from './engine-helper.ts';

/** Settings of a {@link HelperPool}. */
export interface HelperPoolOptions {
  /** The compiled `awp-espeak-engine` executable. */
  readonly binaryPath: string;
  /** Most helper processes alive at once, which is also the most requests served at once. */
  readonly maxHelpers: number;
  /** Bounds of the queue of requests waiting for a helper (length, wait deadline). */
  readonly queue?: WaitQueueOptions;
}

/** What the pool holds right now (same shape as the one-shot pool's stats). */
export interface HelperPoolStats {
  /** Helper processes alive. */
  readonly alive: number;
  /** Requests holding a helper. */
  readonly busy: number;
  /** Idle helper processes. */
  readonly warm: number;
  /** Requests queued for a helper. */
  readonly waiting: number;
}

/**
 * A bounded set of long-lived engine helpers. A request leases one helper for one
 * utterance and gives it back; at most `maxHelpers` leases (and so processes) exist, and
 * further requests wait in FIFO order, bounded like the one-shot pool's queue.
 *
 * Supervision: a helper that died (crash, kill, failed start) is dropped when it exits and
 * a new one is started on the next lease, so a crash fails only the request it was
 * serving. A helper whose request was cancelled goes back to the pool only after the
 * engine confirmed the stop.
 */
export class HelperPool {
  readonly #options: HelperPoolOptions;
  readonly #helpers = new Set<EngineHelper>();
  /** Most recently used last, so the warmest helper is reused first. */
  readonly #idle: EngineHelper[] = [];
  readonly #waiters: WaitQueue;
  #leased = 0;
  #closed = false;

  constructor(options: HelperPoolOptions) {
    if (!Number.isInteger(options.maxHelpers) || options.maxHelpers < 1) {
      throw new RangeError('maxHelpers must be a positive integer');
    }
    this.#options = options;
    this.#waiters = new WaitQueue(options.queue);
  }

  get stats(): HelperPoolStats {
    return {
      alive: this.#helpers.size,
      busy: this.#leased,
      warm: this.#idle.length,
      waiting: this.#waiters.length,
    };
  }

  /**
   * A helper for one utterance, owned by the caller until {@link release}. Waits when all
   * helpers are leased; rejects with `signal.reason` when `signal` aborts while waiting and
   * with `ProviderError('overloaded')` when the queue is full or its deadline passes.
   */
  async acquire(signal: AbortSignal): Promise<EngineHelper> {
    signal.throwIfAborted();
    if (this.#leased < this.#options.maxHelpers && this.#waiters.length === 0) {
      this.#leased += 1;
    } else {
      // The releasing caller hands its lease over before granting.
      await this.#waiters.wait(signal);
      if (signal.aborted) {
        this.#returnLease();
        throw signal.reason;
      }
    }
    return this.#take();
  }

  /** Gives a helper back: reused when it is alive and idle, else killed and dropped. */
  release(helper: EngineHelper): void {
    if (helper.alive && !helper.busy && !this.#closed) {
      helper.setReferenced(false);
      this.#idle.push(helper);
    } else {
      helper.kill();
    }
    this.#returnLease();
  }

  /** Kills every idle helper and stops reusing helpers; leased ones end when released. */
  async close(): Promise<void> {
    this.#closed = true;
    const idle = this.#idle.splice(0);
    for (const helper of idle) {
      helper.setReferenced(true);
      helper.kill();
    }
    await Promise.all(idle.map((helper) => helper.exited));
  }

  #take(): EngineHelper {
    for (;;) {
      const helper = this.#idle.pop();
      if (helper === undefined) break;
      if (!helper.alive) continue;
      helper.setReferenced(true);
      return helper;
    }
    const helper = new EngineHelper(this.#options.binaryPath);
    this.#helpers.add(helper);
    void helper.exited.then(() => {
      this.#helpers.delete(helper);
      const index = this.#idle.indexOf(helper);
      if (index >= 0) this.#idle.splice(index, 1);
    });
    return helper;
  }

  #returnLease(): void {
    if (this.#waiters.length > 0) {
      this.#waiters.grantNext();
      return;
    }
    this.#leased -= 1;
  }
}
