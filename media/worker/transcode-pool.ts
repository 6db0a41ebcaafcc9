import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { abortError, DEFAULT_HIGH_WATER_MARK_BYTES } from '../encoder.ts';
import { MediaError } from '../errors.ts';
import type { OutputFormat } from '../formats.ts';
import { OutputQueue } from '../output-queue.ts';
import type { PcmChunk } from '../pcm.ts';
import { siblingEntry } from '../runtime-entry.ts';
import type { Transcoder, TranscoderOptions } from '../transcode.ts';
import type { TranscodeCommand, TranscodeEvent } from './protocol.ts';

const ENTRY = siblingEntry(import.meta.url, 'transcode-worker');
// From source, worker threads need the TypeScript loader registered in their own thread.
const BOOTSTRAP = path.join(import.meta.dirname, 'bootstrap.mjs');

interface WorkerSlot {
  readonly worker: Worker;
  readonly transcoders: Map<number, PooledTranscoder>;
}

/**
 * Worker threads that resample and encode, so a busy process keeps its event loop for
 * the network. Each transcoder lives on one worker (the least busy at creation); output
 * comes back in order and the consumer's pace still bounds memory (backpressure on the
 * main thread, see {@link PooledTranscoder}). A worker that dies fails only its own
 * transcoders (`MediaError('encoder_failed')`) and is replaced.
 *
 * @example
 * const pool = new TranscodePool({ threads: 2 });
 * const transcoder = pool.create('opus_48000_64', { signal });
 * // same use as AudioTranscoder
 * await pool.close();
 */
export class TranscodePool {
  readonly #threads: number;
  readonly #slots: (WorkerSlot | undefined)[];
  #nextId = 1;
  #closed = false;

  constructor(options: { threads: number }) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw new RangeError('threads must be a positive integer');
    }
    this.#threads = options.threads;
    this.#slots = Array.from({ length: options.threads }, () => undefined);
  }

  /** Transcoders running now, for metrics and tests. */
  get active(): number {
    return this.#slots.reduce((sum, slot) => sum + (slot?.transcoders.size ?? 0), 0);
  }

  /** The running worker threads (diagnostics and tests). */
  get workers(): Worker[] {
    return this.#slots.flatMap((slot) => (slot ? [slot.worker] : []));
  }

  create(format: OutputFormat, options: TranscoderOptions = {}): Transcoder {
    if (this.#closed) throw new MediaError('encoder_failed', 'the transcode pool is closed');
    const slot = this.#leastBusy();
    const id = this.#nextId++;
    const transcoder = new PooledTranscoder(format, id, options, (command, transfer) =>
      slot.worker.postMessage(command, transfer ?? []),
    );
    slot.transcoders.set(id, transcoder);
    transcoder.done.then(() => slot.transcoders.delete(id));
    slot.worker.postMessage({
      op: 'open',
      id,
      format,
      settings: {
        ...(options.opusComplexity === undefined ? {} : { opusComplexity: options.opusComplexity }),
        ...(options.ffmpegPath === undefined ? {} : { ffmpegPath: options.ffmpegPath }),
        ...(options.resampler?.quality === undefined
          ? {}
          : { resamplerQuality: options.resampler.quality }),
      },
    } satisfies TranscodeCommand);
    return transcoder;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((slot) => slot?.worker.terminate()));
    this.#slots.fill(undefined);
  }

  #leastBusy(): WorkerSlot {
    let best = 0;
    for (let i = 0; i < this.#threads; i++) {
      const load = this.#slots[i]?.transcoders.size ?? -1;
      const bestLoad = this.#slots[best]?.transcoders.size ?? -1;
      if (load < bestLoad) best = i;
    }
    return this.#slots[best] ?? this.#start(best);
  }

  #start(index: number): WorkerSlot {
    const worker = ENTRY.compiled
      ? new Worker(ENTRY.file)
      : new Worker(BOOTSTRAP, { workerData: { entry: ENTRY.url } });
    worker.unref();
    const slot: WorkerSlot = { worker, transcoders: new Map() };
    this.#slots[index] = slot;
    worker.on('message', (event: TranscodeEvent) => slot.transcoders.get(event.id)?.receive(event));
    const fail = (reason: string) => {
      if (this.#slots[index] === slot) this.#slots[index] = undefined;
      for (const transcoder of slot.transcoders.values()) {
        transcoder.fail(new MediaError('encoder_failed', reason));
      }
      slot.transcoders.clear();
    };
    worker.on('error', (error) => fail(`transcode worker failed: ${error.message}`));
    worker.on('exit', (code) => fail(`transcode worker exited with code ${code}`));
    return slot;
  }
}

type Send = (command: TranscodeCommand, transfer?: ArrayBuffer[]) => void;

/**
 * The main-thread side of one worker transcoder, with the surface of `AudioTranscoder`:
 * `write()` resolves once the worker took the PCM and the unread output is below the
 * high-water mark, `end()` once every encoded byte arrived, `abort()` stops both sides.
 */
class PooledTranscoder implements Transcoder {
  readonly format: OutputFormat;
  readonly output: OutputQueue;
  /** Resolves once the transcoder closed, failed or was aborted. */
  readonly done: Promise<void>;
  readonly #id: number;
  readonly #send: Send;
  readonly #signal: AbortSignal | undefined;
  readonly #written = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  #ended: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  #failure: { readonly reason: unknown } | undefined;
  #finished = false;
  #seq = 0;
  #resolveDone: () => void = () => {};

  constructor(format: OutputFormat, id: number, options: TranscoderOptions, send: Send) {
    this.format = format;
    this.#id = id;
    this.#send = send;
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    this.output = new OutputQueue(options.highWaterMarkBytes ?? DEFAULT_HIGH_WATER_MARK_BYTES, () =>
      this.abort(),
    );
    this.#signal = options.signal;
    if (this.#signal?.aborted) this.abort(this.#signal.reason);
    else this.#signal?.addEventListener('abort', this.#onAbort);
  }

  async write(chunk: PcmChunk): Promise<void> {
    this.#throwIfFailed();
    if (this.#finished) throw new MediaError('encoder_failed', 'write() called after end()');
    const seq = ++this.#seq;
    const copy = new Uint8Array(chunk.data.byteLength);
    copy.set(chunk.data);
    const taken = new Promise<void>((resolve, reject) =>
      this.#written.set(seq, { resolve, reject }),
    );
    this.#send(
      { op: 'write', id: this.#id, seq, pcm: copy.buffer, sampleRateHz: chunk.sampleRateHz },
      [copy.buffer],
    );
    await taken;
    await this.output.whenWritable();
  }

  end(): Promise<void> {
    this.#throwIfFailed();
    this.#finished = true;
    const ended = new Promise<void>((resolve, reject) => {
      this.#ended = { resolve, reject };
    });
    this.#send({ op: 'end', id: this.#id });
    return ended;
  }

  abort(reason: unknown = abortError()): void {
    if (this.#failure) return;
    this.#send({ op: 'abort', id: this.#id });
    this.fail(reason);
  }

  /** @internal A message from the worker. */
  receive(event: TranscodeEvent): void {
    switch (event.op) {
      case 'data':
        this.output.push(Buffer.from(event.bytes));
        return;
      case 'written': {
        const waiter = this.#written.get(event.seq);
        this.#written.delete(event.seq);
        waiter?.resolve();
        return;
      }
      case 'closed':
        this.#signal?.removeEventListener('abort', this.#onAbort);
        this.output.close();
        this.#ended?.resolve();
        this.#resolveDone();
        return;
      case 'failed':
        this.fail(new MediaError(event.failure.kind, event.failure.message));
        return;
    }
  }

  /** @internal Fails everything pending and the output with `reason`. */
  fail(reason: unknown): void {
    if (this.#failure) return;
    this.#failure = { reason };
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.output.fail(reason);
    for (const waiter of this.#written.values()) waiter.reject(reason);
    this.#written.clear();
    this.#ended?.reject(reason);
    this.#resolveDone();
  }

  readonly #onAbort = (): void => this.abort(this.#signal?.reason);

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.reason;
  }
}
