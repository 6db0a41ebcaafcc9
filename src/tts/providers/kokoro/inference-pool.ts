import { Worker } from 'node:worker_threads';
import { siblingEntry } from '../../../../media/runtime-entry.ts';
import { ProviderError } from '../errors.ts';
import type { InferenceWorkerData, InferenceWorkerMessage } from './inference-protocol.ts';
import type { SeamEnd } from './seams.ts';

/**
 * The worker entry and the thread bootstrap that loads it. Kept in one function so the
 * release build can switch both to compiled `.js` files in one place.
 */
export function inferenceWorkerFiles(): { bootstrap: string; entry: string } {
  const entry = siblingEntry(import.meta.url, 'inference-worker');
  return {
    bootstrap: entry.threadFile,
    entry: entry.url,
  };
}

/** Settings of an {@link InferencePool}. */
export interface InferencePoolOptions {
  readonly modelPath: string;
  readonly modelSha256: string;
  readonly sampleRateHz: number;
  /** onnxruntime intra-op threads per inference. */
  readonly threadsPerInference: number;
  /** Model runs at once, each in its own worker thread with its own session (~550 MB). */
  readonly concurrentInferences: number;
  /**
   * Longest a request's first chunk may wait for a worker. A request whose estimated
   * wait is longer is refused at once with `overloaded` (public `provider_unavailable`,
   * retryable); one that waited this long anyway fails the same way.
   */
  readonly maxWaitMs: number;
  /** Called when the model cannot be loaded (missing or corrupt file); for the log. */
  readonly onLoadFailure?: (message: string) => void;
}

/** One model run as the pool sees it. */
export interface InferenceJob {
  readonly tokens: readonly number[];
  readonly style: Float32Array;
  readonly speed: number;
  /**
   * The first chunk of a request. Later chunks of streams already playing are served
   * first, so admitting a new stream never makes the running ones stutter.
   */
  readonly first: boolean;
  /** How the chunk's audio ends (seams.ts). */
  readonly seam: SeamEnd;
}

/** Result of one run. */
export interface InferenceResult {
  readonly pcm: Int16Array;
  readonly rawSamples: number;
  /** Model sample where `pcm` starts. */
  readonly trimmedSamples: number;
  /** Model frames of each input token, pads included (see inference-protocol.ts). */
  readonly durations: Uint16Array;
  readonly computeMs: number;
}

/** What the pool holds right now. */
export interface InferencePoolStats {
  readonly workers: number;
  readonly busy: number;
  readonly queued: number;
  /** Estimated wait of a new request's first chunk. */
  readonly estimatedWaitMs: number;
  /** True when a new request would be refused. */
  readonly saturated: boolean;
}

interface Pending {
  readonly job: InferenceJob;
  readonly estimateMs: number;
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly resolve: (result: InferenceResult) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  running?: { id: number; pending: Pending; startedAt: number };
}

/** Starting guess of compute per phoneme token (two threads, float32 graph, this machine). */
const INITIAL_MS_PER_TOKEN = 50;

/**
 * A bounded set of worker threads running Kokoro, with a queue, an admission bound and a
 * deadline. Compute per token is learned from finished runs (moving average) and used
 * to estimate how long a new request would wait.
 */
export class InferencePool {
  readonly #options: InferencePoolOptions;
  readonly #slots: Slot[] = [];
  /** Later chunks of running streams, then first chunks; each FIFO. */
  readonly #continuing: Pending[] = [];
  readonly #fresh: Pending[] = [];
  #msPerToken = INITIAL_MS_PER_TOKEN;
  #nextId = 1;
  #failure: string | undefined;
  #closed = false;
  readonly #ready: Promise<void>;

  constructor(options: InferencePoolOptions) {
    if (!Number.isInteger(options.concurrentInferences) || options.concurrentInferences < 1) {
      throw new RangeError('concurrentInferences must be a positive integer');
    }
    this.#options = options;
    const starts: Promise<void>[] = [];
    for (let i = 0; i < options.concurrentInferences; i++) starts.push(this.#start());
    this.#ready = Promise.all(starts).then(() => undefined);
  }

  /** Resolves when every worker has loaded the model; rejects with the load failure. */
  ready(): Promise<void> {
    return this.#ready;
  }

  get stats(): InferencePoolStats {
    const estimatedWaitMs = this.#estimatedWaitMs();
    return {
      workers: this.#slots.length,
      busy: this.#slots.filter((slot) => slot.running).length,
      queued: this.#continuing.length + this.#fresh.length,
      estimatedWaitMs,
      saturated: estimatedWaitMs > this.#options.maxWaitMs,
    };
  }

  /** Runs `job`; rejects with `signal.reason` on abort (a run in progress finishes unseen). */
  run(job: InferenceJob, signal: AbortSignal): Promise<InferenceResult> {
    signal.throwIfAborted();
    if (this.#failure !== undefined) {
      return Promise.reject(new ProviderError('unavailable', this.#failure));
    }
    if (this.#closed) return Promise.reject(new ProviderError('unavailable', 'engine closed'));
    const estimateMs = this.#estimate(job);
    if (job.first) {
      const waitMs = this.#estimatedWaitMs();
      if (waitMs > this.#options.maxWaitMs) {
        return Promise.reject(
          new ProviderError(
            'overloaded',
            `neural engine saturated: estimated wait ${Math.round(waitMs)} ms > ${this.#options.maxWaitMs} ms`,
          ),
        );
      }
    }
    // Later chunks get a longer deadline: failing a stream that already plays is worse.
    const deadline = performance.now() + this.#options.maxWaitMs * (job.first ? 1 : 4);
    return new Promise<InferenceResult>((resolve, reject) => {
      const queue = job.first ? this.#fresh : this.#continuing;
      const pending: Pending = {
        job,
        estimateMs,
        deadline,
        signal,
        resolve,
        reject,
        onAbort: () => {
          const index = queue.indexOf(pending);
          if (index >= 0) queue.splice(index, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', pending.onAbort, { once: true });
      queue.push(pending);
      this.#dispatch();
    });
  }

  /** Ends the workers; queued and running jobs fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const error = new ProviderError('unavailable', 'engine closed');
    for (const pending of [...this.#continuing.splice(0), ...this.#fresh.splice(0)]) {
      this.#settle(pending, error);
    }
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
  }

  #estimate(job: InferenceJob): number {
    return job.tokens.length * this.#msPerToken;
  }

  #estimatedWaitMs(): number {
    const now = performance.now();
    let work = 0;
    for (const slot of this.#slots) {
      if (slot.running) {
        work += Math.max(0, slot.running.pending.estimateMs - (now - slot.running.startedAt));
      }
    }
    for (const pending of this.#continuing) work += pending.estimateMs;
    for (const pending of this.#fresh) work += pending.estimateMs;
    const idle = this.#slots.some((slot) => slot.ready && !slot.running);
    if (idle && this.#continuing.length + this.#fresh.length === 0) return 0;
    return work / Math.max(1, this.#slots.length);
  }

  #start(): Promise<void> {
    const files = inferenceWorkerFiles();
    const workerData: InferenceWorkerData = {
      entry: files.entry,
      modelPath: this.#options.modelPath,
      modelSha256: this.#options.modelSha256,
      threads: this.#options.threadsPerInference,
      sampleRateHz: this.#options.sampleRateHz,
    };
    const worker = new Worker(files.bootstrap, { workerData });
    const slot: Slot = { worker, ready: false };
    this.#slots.push(slot);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: InferenceWorkerMessage) => {
        if (message.type === 'ready') {
          slot.ready = true;
          resolve();
          this.#dispatch();
        } else if (message.type === 'failed') {
          this.#fail(message.message);
          reject(new ProviderError('unavailable', message.message));
        } else {
          this.#finish(slot, message);
        }
      });
      worker.on('error', (error) => {
        if (!slot.ready) {
          this.#fail(`neural engine worker failed to start: ${error.message}`);
          reject(new ProviderError('unavailable', error.message, { cause: error }));
        }
        const running = slot.running;
        slot.running = undefined;
        if (running) this.#settle(running.pending, new ProviderError('unavailable', error.message));
      });
      worker.on('exit', () => {
        const index = this.#slots.indexOf(slot);
        if (index >= 0) this.#slots.splice(index, 1);
        const running = slot.running;
        if (running) {
          this.#settle(
            running.pending,
            new ProviderError('unavailable', 'neural engine worker exited'),
          );
        }
        // A worker that served before and died is replaced; a load failure is final.
        if (slot.ready && !this.#closed && this.#failure === undefined) {
          void this.#start().catch(() => undefined);
        }
      });
    });
  }

  #fail(message: string): void {
    if (this.#failure !== undefined) return;
    this.#failure = message;
    this.#options.onLoadFailure?.(message);
    const error = new ProviderError('unavailable', message);
    for (const pending of [...this.#continuing.splice(0), ...this.#fresh.splice(0)]) {
      this.#settle(pending, error);
    }
  }

  #settle(pending: Pending, outcome: InferenceResult | Error): void {
    pending.signal.removeEventListener('abort', pending.onAbort);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  #finish(slot: Slot, message: InferenceWorkerMessage): void {
    const running = slot.running;
    if (!running || !('id' in message) || message.id !== running.id) return;
    slot.running = undefined;
    if (message.type === 'done') {
      const perToken = message.computeMs / Math.max(1, running.pending.job.tokens.length);
      this.#msPerToken = 0.8 * this.#msPerToken + 0.2 * perToken;
      this.#settle(running.pending, {
        pcm: new Int16Array(message.pcm),
        rawSamples: message.rawSamples,
        trimmedSamples: message.trimmedSamples,
        durations: message.durations,
        computeMs: message.computeMs,
      });
    } else if (message.type === 'error') {
      this.#settle(
        running.pending,
        new ProviderError('unavailable', `inference failed: ${message.message}`),
      );
    }
    this.#dispatch();
  }

  #next(): Pending | undefined {
    const now = performance.now();
    for (const queue of [this.#continuing, this.#fresh]) {
      while (queue.length > 0) {
        const pending = queue.shift() as Pending;
        if (pending.signal.aborted) continue;
        if (now > pending.deadline) {
          this.#settle(
            pending,
            new ProviderError('overloaded', 'neural engine saturated: queue deadline passed'),
          );
          continue;
        }
        return pending;
      }
    }
    return undefined;
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.running) continue;
      const pending = this.#next();
      if (!pending) return;
      const id = this.#nextId++;
      slot.running = { id, pending, startedAt: performance.now() };
      const { tokens, style, speed, seam } = pending.job;
      slot.worker.postMessage({ type: 'run', id, tokens, style, speed, seam });
    }
  }
}
