import { WaitQueue, type WaitQueueOptions } from '../wait-queue.ts';
import type { Engine, EngineStarter } from './engine.ts';
import { EngineProcess } from './engine-process.ts';

/** Settings of an {@link EnginePool}. */
export interface EnginePoolOptions {
  /** espeak-ng executable (path or name looked up on PATH). */
  readonly binaryPath: string;
  /** Most espeak-ng processes alive at once, warm spares included. At least 1. */
  readonly maxProcesses: number;
  /** Most idle pre-spawned processes kept, one per recently used voice and rate. 0 disables. */
  readonly warmProcesses: number;
  /** A warm process unused for this long is killed. */
  readonly warmIdleMs: number;
  /** How processes are started. Default: spawned by this process. */
  readonly startEngine?: EngineStarter;
  /** Bounds of the queue of requests waiting for a process (length, wait deadline). */
  readonly queue?: WaitQueueOptions;
}

/** What the pool holds right now. */
export interface EnginePoolStats {
  /** Processes alive (or being started), warm spares included; never above maxProcesses. */
  readonly alive: number;
  /** Processes serving a request. */
  readonly busy: number;
  /** Idle pre-spawned processes. */
  readonly warm: number;
  /** Requests queued for a slot. */
  readonly waiting: number;
}

/** What a request needs: the espeak-ng arguments and a key naming them (voice and rate). */
export interface EngineSpec {
  readonly key: string;
  readonly args: readonly string[];
}

interface WarmEntry {
  readonly process: Engine;
  readonly timer: NodeJS.Timeout;
}

/**
 * A bounded pool of espeak-ng subprocesses.
 *
 * - A slot is taken when a process is spawned and given back when it has exited, so at
 *   most `maxProcesses` processes exist at any time (warm spares count).
 * - Requests beyond the bound wait in a FIFO queue; a waiting request leaves the queue
 *   when its signal aborts. The queue is bounded (`queue`): past its length or wait
 *   deadline a request fails with `ProviderError('overloaded')`. A waiting request first evicts an idle warm spare.
 * - After a request for a voice and rate succeeded, the pool keeps one warm spare for it
 *   (spawned with the same arguments, blocked reading stdin) while slots are free and
 *   nobody waits; the next request with that key skips the process start (about 10 ms).
 */
export class EnginePool {
  readonly #options: EnginePoolOptions;
  #slots = 0;
  #busy = 0;
  readonly #waiters: WaitQueue;
  /** Idle warm spares by key; Map order is least recently used first. */
  readonly #warm = new Map<string, WarmEntry>();
  /** Keys worth a warm spare, most recent first, at most `warmProcesses`. */
  #warmKeys: string[] = [];
  #warmArgs = new Map<string, readonly string[]>();
  #closed = false;
  #fillScheduled = false;

  constructor(options: EnginePoolOptions) {
    if (!Number.isInteger(options.maxProcesses) || options.maxProcesses < 1) {
      throw new RangeError('maxProcesses must be a positive integer');
    }
    this.#options = options;
    this.#waiters = new WaitQueue(options.queue);
  }

  get stats(): EnginePoolStats {
    return {
      alive: this.#slots,
      busy: this.#busy,
      warm: this.#warm.size,
      waiting: this.#waiters.length,
    };
  }

  /**
   * A process for `spec`, owned by the caller until it exits: the caller sends the text,
   * reads stdout and kills it when done or cancelled. Waits in FIFO order when the pool
   * is full; rejects with `signal.reason` when `signal` aborts while waiting, and with
   * `ProviderError('overloaded')` when the queue is full or the wait deadline passes.
   */
  async acquire(spec: EngineSpec, signal: AbortSignal): Promise<Engine> {
    signal.throwIfAborted();
    const warm = this.#takeWarm(spec.key);
    if (warm !== undefined) return this.#assign(warm);
    if (this.#slots < this.#options.maxProcesses && this.#waiters.length === 0) {
      this.#slots += 1;
      return this.#assign(this.#spawn(spec.key, spec.args));
    }
    await this.#wait(signal);
    if (signal.aborted) {
      this.#releaseSlot();
      throw signal.reason;
    }
    return this.#assign(this.#spawn(spec.key, spec.args));
  }

  /** Records that `spec` synthesized fine, which makes it worth a warm spare. */
  noteSuccess(spec: EngineSpec): void {
    if (this.#options.warmProcesses <= 0 || this.#closed) return;
    this.#warmArgs.set(spec.key, spec.args);
    this.#warmKeys = [spec.key, ...this.#warmKeys.filter((key) => key !== spec.key)];
    for (const dropped of this.#warmKeys.splice(this.#options.warmProcesses)) {
      this.#warmArgs.delete(dropped);
      this.#killWarm(dropped);
    }
    this.#scheduleFill();
  }

  /**
   * Stops keeping warm spares and kills the idle ones; requests in flight finish.
   * Resolves once the killed spares have exited.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#warmKeys = [];
    this.#warmArgs.clear();
    const exits = [...this.#warm.values()].map((entry) => entry.process.exited);
    for (const key of [...this.#warm.keys()]) this.#killWarm(key);
    await Promise.all(exits);
  }

  #assign(process: Engine): Engine {
    this.#busy += 1;
    void process.exited.then(() => {
      this.#busy -= 1;
    });
    this.#scheduleFill();
    return process;
  }

  /** Spawns a process in a slot the caller already holds; the slot frees when it exits. */
  #spawn(key: string, args: readonly string[]): Engine {
    const start = this.#options.startEngine ?? startLocalEngine;
    const process = start(this.#options.binaryPath, args, key);
    void process.exited.then(() => this.#releaseSlot());
    return process;
  }

  #releaseSlot(): void {
    this.#slots -= 1;
    if (this.#waiters.length > 0) {
      this.#slots += 1;
      this.#waiters.grantNext();
      return;
    }
    this.#scheduleFill();
  }

  #wait(signal: AbortSignal): Promise<void> {
    // Free a slot held by an idle spare: its exit hands the slot to the queue head.
    const [lru] = this.#warm.keys();
    if (lru !== undefined) this.#killWarm(lru);
    return this.#waiters.wait(signal);
  }

  #takeWarm(key: string): Engine | undefined {
    const entry = this.#warm.get(key);
    if (entry === undefined) return undefined;
    this.#warm.delete(key);
    clearTimeout(entry.timer);
    if (!entry.process.alive) return undefined;
    entry.process.setReferenced(true);
    return entry.process;
  }

  #killWarm(key: string): void {
    const entry = this.#warm.get(key);
    if (entry === undefined) return;
    this.#warm.delete(key);
    clearTimeout(entry.timer);
    // Referenced again so whoever waits for the exit is not cut short by the loop ending.
    entry.process.setReferenced(true);
    entry.process.kill();
  }

  #scheduleFill(): void {
    if (this.#fillScheduled || this.#closed || this.#options.warmProcesses <= 0) return;
    this.#fillScheduled = true;
    // Later than the caller's own spawn and text write, so a spare never delays a request.
    setImmediate(() => {
      this.#fillScheduled = false;
      this.#fillWarm();
    });
  }

  #fillWarm(): void {
    for (const key of this.#warmKeys) {
      if (this.#closed || this.#waiters.length > 0) return;
      if (this.#slots >= this.#options.maxProcesses) return;
      const args = this.#warmArgs.get(key);
      if (args === undefined || this.#warm.has(key)) continue;
      this.#slots += 1;
      const process = this.#spawn(key, args);
      process.setReferenced(false);
      const timer = setTimeout(() => this.#killWarm(key), this.#options.warmIdleMs);
      timer.unref();
      const entry: WarmEntry = { process, timer };
      this.#warm.set(key, entry);
      void process.exited.then(() => {
        // A spare that ended while idle (evicted, timed out, crashed, binary gone) is not
        // replaced until its key succeeds again, so a broken setup cannot spawn in a loop.
        if (this.#warm.get(key) === entry) this.#warm.delete(key);
        if (!process.used) this.#forgetKey(key);
      });
    }
  }

  #forgetKey(key: string): void {
    this.#warmKeys = this.#warmKeys.filter((k) => k !== key);
    this.#warmArgs.delete(key);
  }
}

function startLocalEngine(binaryPath: string, args: readonly string[], key: string): Engine {
  return new EngineProcess(binaryPath, args, key);
}
