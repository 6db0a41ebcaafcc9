import { Worker } from 'node:worker_threads';
import { siblingEntry } from '../../media/runtime-entry.ts';
import type { WorkerSessionStore } from '../../src/worker-boundary/index.ts';
import type { LeaseStoreLocation } from '../../src/worker-boundary/lease-renewal.ts';

/** What the lease thread (lease-renewer.ts) is started with. */
export interface LeaseRenewerData {
  store: LeaseStoreLocation;
  /** The job loop's last run (epoch ms) in a shared Float64Array of one element. */
  loopAlive: SharedArrayBuffer;
}

/** The lease a job holds: renewed every `intervalMs` while its loop ran within the bound. */
export interface LeaseHold {
  sessionId: string;
  epoch: number;
  intervalMs: number;
  /** Renewals stop once the job's loop has not run for this long. */
  stallBoundMs: number;
}

export type LeaseRenewerRequest = { type: 'hold'; hold: LeaseHold } | { type: 'stop' };

export type LeaseRenewerReply =
  | { type: 'superseded' }
  | { type: 'stalled'; silentMs: number }
  | { type: 'failed'; message: string }
  | { type: 'stopped' };

/** Longest wait for the lease thread to finish its last renewal when the lease stops. */
const STOP_WAIT_MS = 5000;

/**
 * A job process's lease thread (lease-renewer.ts), started while the process waits for a
 * session (the worker's prewarm) so that a session's first seconds, when its loop is
 * busiest, do not wait for the thread to start. One session holds it, once.
 */
export class LeaseThread {
  readonly #thread: Worker;
  /** The job loop's last run, read by the thread. */
  readonly loopAlive: Float64Array;
  #stopped: Promise<void> | undefined;

  constructor(store: LeaseStoreLocation) {
    const shared = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
    this.loopAlive = new Float64Array(shared);
    this.loopAlive[0] = Date.now();
    const entry = siblingEntry(import.meta.url, 'lease-renewer');
    const data: LeaseRenewerData = { store, loopAlive: shared };
    this.#thread = new Worker(entry.threadFile, { workerData: { ...data, entry: entry.url } });
    // The job process exits when its session is over, whatever this thread does.
    this.#thread.unref();
    // Until a session holds the lease, a failure has nobody to tell: the loop's own
    // renewals hold it then.
    this.#thread.on('error', () => {});
  }

  hold(hold: LeaseHold, onReply: (reply: LeaseRenewerReply) => void): void {
    this.#thread.on('message', onReply);
    this.#thread.postMessage({ type: 'hold', hold } satisfies LeaseRenewerRequest);
  }

  /** Stops renewing; resolves once no renewal of the thread can land any more. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    const thread = this.#thread;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_WAIT_MS);
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      thread.on('message', (reply: LeaseRenewerReply) => {
        if (reply.type === 'stopped') finish();
      });
      thread.once('exit', finish);
    });
    thread.postMessage({ type: 'stop' } satisfies LeaseRenewerRequest);
    await done;
    await thread.terminate();
  }
}

export interface JobLeaseHandlers {
  /** A newer job runs the session (or it ended): this job must leave. Once. */
  superseded: () => void;
  failed: (error: Error) => void;
  /** The job's loop has not run for the stall bound: its lease is left to lapse. */
  stalled: (silentMs: number) => void;
}

/**
 * The job's lease on its session, renewed every `intervalMs` twice over: by the job's own
 * loop, and by the process's lease thread, which goes on while the loop is busy, up to the
 * stall bound. Either renewal holds the lease. The api hands a session whose lease lapsed
 * to a new job; when a renewal finds the session handed away (or over), `superseded` runs
 * once, so a stalled job never talks over the one that resumed.
 */
export class JobLease {
  readonly #beat: NodeJS.Timeout;
  readonly #thread: LeaseThread;
  readonly #handlers: JobLeaseHandlers;
  #superseded = false;
  #stopped: Promise<void> | undefined;

  constructor(
    sessions: Pick<WorkerSessionStore, 'renewLease'>,
    thread: LeaseThread,
    hold: LeaseHold,
    handlers: JobLeaseHandlers,
  ) {
    this.#thread = thread;
    this.#handlers = handlers;
    thread.loopAlive[0] = Date.now();
    this.#beat = setInterval(() => {
      thread.loopAlive[0] = Date.now();
      sessions.renewLease(hold.sessionId, hold.epoch).then((held) => {
        if (!held) this.#supersede();
      }, handlers.failed);
    }, hold.intervalMs);
    thread.hold(hold, (reply) => {
      if (reply.type === 'superseded') this.#supersede();
      else if (reply.type === 'stalled') handlers.stalled(reply.silentMs);
      else if (reply.type === 'failed') handlers.failed(new Error(reply.message));
    });
  }

  get superseded(): boolean {
    return this.#superseded;
  }

  /** Stops renewing; resolves once no renewal can land any more. */
  stop(): Promise<void> {
    clearInterval(this.#beat);
    this.#stopped ??= this.#thread.stop();
    return this.#stopped;
  }

  #supersede(): void {
    if (this.#superseded || this.#stopped) return;
    this.#superseded = true;
    void this.stop();
    this.#handlers.superseded();
  }
}

/**
 * How often a job renews its lease: three times within the hand-over bound, and within a
 * quarter of the heartbeat timeout after which the session fails.
 */
export function leaseIntervalMs(config: {
  AGENT_SESSION_HEARTBEAT_TIMEOUT_MS: number;
  AGENT_SESSION_HANDOVER_AFTER_MS: number;
}): number {
  const bounds = [Math.floor(config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS / 4)];
  if (config.AGENT_SESSION_HANDOVER_AFTER_MS > 0) {
    bounds.push(Math.floor(config.AGENT_SESSION_HANDOVER_AFTER_MS / 3));
  }
  return Math.max(250, Math.min(...bounds));
}

/** Where the lease thread renews: the database the configuration names. */
export function leaseStoreLocation(config: {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
}): LeaseStoreLocation {
  return { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR };
}
