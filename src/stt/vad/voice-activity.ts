import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { siblingEntry } from '../../../media/runtime-entry.ts';
import type { Logger } from '../../observability/logger.ts';
import {
  VAD_WINDOW_SAMPLES,
  type VadReply,
  type VadRequest,
  type VadWorkerData,
} from './protocol.ts';

/**
 * The Silero VAD v5 model (MIT, silero_vad.LICENSE.txt), next to this file: the one voice
 * activity model of the api's realtime transcription and the agent worker's turns.
 */
export function sileroModelPath(): string {
  return fileURLToPath(new URL('./silero_vad.onnx', import.meta.url));
}

/** What a stream's owner is told. */
export interface VadStreamListener {
  /**
   * One 32 ms window (512 samples at 16 kHz) and Silero's speech probability for it;
   * `waitedMs`: from the push that completed the window to its answer.
   */
  window(samples: Int16Array, probability: number, waitedMs: number): void;
  /** The model failed; the stream reports nothing more. */
  failed(error: Error): void;
}

/**
 * Voice activity: one worker thread per process (the api, or an agent worker's job process),
 * started with the first stream that needs it or by `warmUp()`, runs Silero over every
 * stream's audio; each stream keeps its own model state there. Windows come back in order
 * with their probability.
 */
export class VoiceActivity {
  readonly #modelPath: string;
  readonly #logger: Logger;
  #worker: Worker | undefined;
  #ready: Promise<void> | undefined;
  #nextId = 1;
  readonly #streams = new Map<number, VadStream>();

  constructor(logger: Logger, modelPath: string = sileroModelPath()) {
    this.#modelPath = modelPath;
    this.#logger = logger;
  }

  /** Opens a stream, starting the worker when none runs; rejects when it cannot start. */
  async open(listener: VadStreamListener): Promise<VadStream> {
    await this.#start();
    const id = this.#nextId++;
    const stream = new VadStream(
      id,
      listener,
      (request) => this.#post(request),
      () => {
        this.#streams.delete(id);
      },
    );
    this.#streams.set(id, stream);
    this.#post({ type: 'open', stream: id });
    return stream;
  }

  /** Loads the model now, so the first stream does not wait for it. */
  warmUp(): Promise<void> {
    return this.#start();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = undefined;
    await worker?.terminate();
  }

  #post(request: VadRequest): void {
    this.#worker?.postMessage(request);
  }

  #start(): Promise<void> {
    this.#ready ??= new Promise<void>((resolve, reject) => {
      const entry = siblingEntry(import.meta.url, 'vad-worker');
      const bootstrap = entry.threadFile;
      const workerData: VadWorkerData = { entry: entry.url, modelPath: this.#modelPath };
      const worker = new Worker(bootstrap, { workerData });
      worker.unref();
      this.#worker = worker;
      worker.on('message', (reply: VadReply) => {
        if (reply.type === 'ready') resolve();
        else if (reply.type === 'failed') this.#fail(worker, new Error(reply.message), reject);
        else this.#streams.get(reply.stream)?.answered(reply.probabilities);
      });
      worker.on('error', (error) => this.#fail(worker, error, reject));
      worker.on('exit', (code) => {
        if (this.#worker === worker) this.#fail(worker, new Error(`exited with ${code}`), reject);
      });
    });
    return this.#ready;
  }

  /** The worker failed: every open stream fails, and the next `open` starts a new one. */
  #fail(worker: Worker, error: Error, reject: (error: Error) => void): void {
    if (this.#worker !== worker) return;
    this.#logger.error({ err: error }, 'voice activity worker failed');
    this.#worker = undefined;
    this.#ready = undefined;
    void worker.terminate();
    reject(error);
    for (const stream of [...this.#streams.values()]) stream.fail(error);
    this.#streams.clear();
  }
}

/** One session's audio through the VAD; windows are reported in order. */
export class VadStream {
  /** Audio sent and not yet reported, oldest first. */
  readonly #pending: Int16Array[] = [];
  #pendingOffset = 0;
  /** When each outstanding push was sent (performance.now()), oldest first. */
  readonly #pushedAt: number[] = [];
  #outstanding = 0;
  #idle: (() => void)[] = [];
  #failure: Error | undefined;
  #closed = false;

  /** @internal Made by {@link VoiceActivity.open}. */
  constructor(
    private readonly id: number,
    private readonly listener: VadStreamListener,
    private readonly post: (request: VadRequest) => void,
    private readonly forget: () => void,
  ) {}

  /** Sends 16 kHz samples to the model (copied). */
  push(samples: Int16Array): void {
    if (this.#closed || this.#failure || samples.length === 0) return;
    const copy = samples.slice();
    this.#pending.push(copy);
    this.#outstanding++;
    this.#pushedAt.push(performance.now());
    this.post({ type: 'audio', stream: this.id, samples: copy });
  }

  /** Resolves once every pushed window has been reported (rejects if the model failed). */
  drained(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#outstanding === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#idle.push(() => (this.#failure ? reject(this.#failure) : resolve()));
    });
  }

  /** After `drained()`: the samples after the last full window (less than 32 ms). */
  takeTail(): Int16Array {
    const total = this.#pending.reduce((sum, chunk) => sum + chunk.length, 0) - this.#pendingOffset;
    return this.#take(total);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.post({ type: 'close', stream: this.id });
    this.forget();
  }

  /** @internal The worker's answer to the oldest outstanding push. */
  answered(probabilities: Float32Array): void {
    this.#outstanding--;
    const waitedMs = performance.now() - (this.#pushedAt.shift() ?? performance.now());
    if (!this.#closed) {
      for (const probability of probabilities) {
        this.listener.window(this.#take(VAD_WINDOW_SAMPLES), probability, waitedMs);
      }
    }
    if (this.#outstanding === 0) this.#wake();
  }

  /** @internal */
  fail(error: Error): void {
    this.#failure = error;
    this.#outstanding = 0;
    this.#pushedAt.length = 0;
    this.#wake();
    if (!this.#closed) this.listener.failed(error);
  }

  #wake(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const wake of idle) wake();
  }

  /** The oldest `count` pending samples. */
  #take(count: number): Int16Array {
    const out = new Int16Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.#pending[0];
      if (!chunk) break;
      const n = Math.min(count - filled, chunk.length - this.#pendingOffset);
      out.set(chunk.subarray(this.#pendingOffset, this.#pendingOffset + n), filled);
      filled += n;
      this.#pendingOffset += n;
      if (this.#pendingOffset === chunk.length) {
        this.#pending.shift();
        this.#pendingOffset = 0;
      }
    }
    return out;
  }
}
