import { MediaError } from './errors.ts';
import { int16ToPcm, pcmToInt16 } from './pcm.ts';
import type { PolyphaseBank } from './polyphase-filter.ts';
import { type PolyphaseKernelRun, polyphaseKernelBytes } from './polyphase-kernel.ts';

/** Input floats one kernel call may read (its window); longer runs go in blocks. */
const IN_SAMPLES = 16384;
/** Output samples one kernel call may write. */
const OUT_SAMPLES = 32768;
const IN_POINTER = 0;
const OUT_POINTER = IN_SAMPLES * 4;
/** Filter banks are copied into the module's memory from here on, one per ratio. */
const BANKS_POINTER = OUT_POINTER + OUT_SAMPLES * 2;
const PAGE_BYTES = 65536;

/**
 * The kernel module of one thread with its memory: shared scratch (JavaScript runs one
 * call at a time) and the filter banks of every ratio used so far.
 */
export interface PolyphaseRuntime {
  readonly memory: WebAssembly.Memory;
  readonly run: PolyphaseKernelRun;
  readonly bankPointers: Map<PolyphaseBank, number>;
  top: number;
}

let runtimePromise: Promise<PolyphaseRuntime | null> | null = null;

/**
 * Load the kernel once per thread, or resolve `null` where WebAssembly SIMD is missing
 * (every Node 20 has it; the caller then uses the Speex resampler).
 */
export function loadPolyphaseRuntime(): Promise<PolyphaseRuntime | null> {
  runtimePromise ??= (async () => {
    const bytes = polyphaseKernelBytes();
    if (!WebAssembly.validate(bytes)) return null;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(BANKS_POINTER / PAGE_BYTES) + 2 });
    const module = await WebAssembly.compile(bytes);
    const instance = await WebAssembly.instantiate(module, { env: { memory } });
    const run = instance.exports.run as PolyphaseKernelRun;
    return { memory, run, bankPointers: new Map(), top: BANKS_POINTER };
  })().catch(() => null); // a module this small only fails where WebAssembly is crippled: use Speex
  return runtimePromise;
}

/** Where `bank` lives in the module's memory, copying it there on first use. */
function bankPointer(runtime: PolyphaseRuntime, bank: PolyphaseBank): number {
  const known = runtime.bankPointers.get(bank);
  if (known !== undefined) return known;
  const pointer = runtime.top;
  const end = pointer + bank.taps.byteLength;
  const missing = end - runtime.memory.buffer.byteLength;
  if (missing > 0) runtime.memory.grow(Math.ceil(missing / PAGE_BYTES));
  new Float32Array(runtime.memory.buffer, pointer, bank.taps.length).set(bank.taps);
  runtime.top = end + ((16 - (end % 16)) % 16);
  runtime.bankPointers.set(bank, pointer);
  return pointer;
}

/**
 * Streaming rational-ratio resampler (polyphase FIR, Kaiser-windowed sinc taps designed
 * once per ratio in ./polyphase-filter.ts), s16le mono in and out, float arithmetic inside.
 *
 * Output sample `n` is the filtered input at time `n * M / L` input samples, computed from
 * the same input samples and taps whatever the chunking, so any split of the input gives
 * the same bytes as one push. Output is time-aligned with the input (no filter delay), and
 * `flush()` ends the stream at exactly `round(inputSamples * toHz / fromHz)` samples, as
 * the Speex path does.
 *
 * The multiply-adds run in a WebAssembly SIMD kernel (./polyphase-kernel.ts) over taps
 * precomputed per phase, with no interpolation between them, which makes it several times
 * cheaper than SpeexDSP for the service's fixed ratios (bench/resampler.ts). Create through
 * `createResampler()` in resample.ts.
 */
export class PolyphaseResampler {
  readonly fromHz: number;
  readonly toHz: number;
  readonly #bank: PolyphaseBank;
  readonly #runtime: PolyphaseRuntime;
  readonly #tapsPointer: number;
  /** Most outputs one kernel call may make with its input window inside the scratch. */
  readonly #outputsPerCall: number;
  /**
   * Input samples as floats, oldest first. `#buffer[0]` is input sample `#bufferStart`
   * (negative before the stream's first sample: the zero history the filter starts on).
   */
  #buffer: Float32Array;
  #bufferStart: number;
  #bufferLength: number;
  /** Input samples received since the stream started. */
  #received = 0;
  /** Output samples produced since the stream started. */
  #produced = 0;
  /** Input index `floor(n * M / L)` and phase `n * M mod L` of the next output sample `n`. */
  #nextIndex = 0;
  #nextPhase = 0;
  #destroyed = false;

  constructor(runtime: PolyphaseRuntime, fromHz: number, toHz: number, bank: PolyphaseBank) {
    this.fromHz = fromHz;
    this.toHz = toHz;
    this.#bank = bank;
    this.#runtime = runtime;
    this.#tapsPointer = bankPointer(runtime, bank);
    // k outputs read at most (k - 1) * M / L + 1 + tapsPerPhase input samples.
    const perCall = Math.floor(
      ((IN_SAMPLES - bank.tapsPerPhase - 2) * bank.upFactor) / bank.downFactor,
    );
    this.#outputsPerCall = Math.max(1, Math.min(OUT_SAMPLES, perCall));
    this.#buffer = new Float32Array(this.#initialCapacity());
    this.#bufferStart = 0;
    this.#bufferLength = 0;
    this.#reset();
  }

  /** Resample `pcm` (s16le) and return what is ready; the filter keeps half its length back. */
  push(pcm: Buffer): Buffer {
    this.#assertLive();
    const input = pcmToInt16(pcm);
    this.#append(input);
    this.#received += input.length;
    return this.#produce(Number.POSITIVE_INFINITY);
  }

  /** Return the held-back tail and reset, so the resampler can start a new stream. */
  flush(): Buffer {
    this.#assertLive();
    const expected = Math.round((this.#received * this.toHz) / this.fromHz);
    // Enough silence that every output up to `expected` has its whole filter span.
    const { tapsPerPhase, upFactor, downFactor } = this.#bank;
    const padding = tapsPerPhase / 2 + Math.ceil(downFactor / upFactor) + 1;
    this.#append(new Int16Array(padding));
    const tail = this.#produce(expected - this.#produced);
    this.#reset();
    return tail;
  }

  /** Drop the buffers (the shared filter bank stays). Further calls throw. */
  destroy(): void {
    this.#destroyed = true;
    this.#buffer = new Float32Array(0);
  }

  #assertLive(): void {
    if (this.#destroyed) {
      throw new MediaError('resampler_failed', 'resampler used after destroy()');
    }
  }

  #reset(): void {
    const history = this.#bank.tapsPerPhase / 2 - 1;
    this.#buffer.fill(0, 0, history);
    this.#bufferStart = -history;
    this.#bufferLength = history;
    this.#received = 0;
    this.#produced = 0;
    this.#nextIndex = 0;
    this.#nextPhase = 0;
  }

  /** Append samples as floats, growing the buffer when needed. */
  #append(input: Int16Array): void {
    const needed = this.#bufferLength + input.length;
    if (needed > this.#buffer.length) {
      const grown = new Float32Array(Math.max(needed, this.#buffer.length * 2));
      grown.set(this.#buffer.subarray(0, this.#bufferLength));
      this.#buffer = grown;
    }
    const buffer = this.#buffer;
    let at = this.#bufferLength;
    for (let i = 0; i < input.length; i++) buffer[at++] = input[i]!;
    this.#bufferLength = at;
  }

  /** Compute every output sample whose filter span is buffered, at most `limit` of them. */
  #produce(limit: number): Buffer {
    const { tapsPerPhase, upFactor, downFactor } = this.#bank;
    const buffer = this.#buffer;
    const half = tapsPerPhase / 2;
    // Output n needs input samples up to `#nextIndex + half`.
    const lastInput = this.#bufferStart + this.#bufferLength - 1;
    const available = lastInput - half - this.#nextIndex;
    // Outputs whose index stays <= lastInput - half: count them from the phase arithmetic.
    let count =
      available < 0
        ? 0
        : Math.floor(((available + 1) * upFactor - this.#nextPhase - 1) / downFactor) + 1;
    count = Math.max(0, Math.min(count, limit));
    const output = new Int16Array(count);
    const { memory, run } = this.#runtime;
    let index = this.#nextIndex;
    let phase = this.#nextPhase;
    const stepBytes = Math.floor(downFactor / upFactor) * 4;
    const stepPhase = downFactor % upFactor;
    for (let done = 0; done < count; ) {
      const calls = Math.min(count - done, this.#outputsPerCall);
      // The input window of these outputs: from the first one's first tap to the last one's last.
      const first = index - half + 1 - this.#bufferStart;
      const lastIndex = index + Math.floor((phase + (calls - 1) * downFactor) / upFactor);
      const end = lastIndex + half + 1 - this.#bufferStart;
      // Views are made per call: growing the memory (a new ratio's bank) detaches old ones.
      new Float32Array(memory.buffer, IN_POINTER, end - first).set(buffer.subarray(first, end));
      run(
        IN_POINTER,
        this.#tapsPointer,
        tapsPerPhase * 4,
        calls,
        phase,
        stepBytes,
        stepPhase,
        upFactor,
        OUT_POINTER,
      );
      output.set(new Int16Array(memory.buffer, OUT_POINTER, calls), done);
      const advanced = phase + calls * downFactor;
      index += Math.floor(advanced / upFactor);
      phase = advanced % upFactor;
      done += calls;
    }
    this.#nextIndex = index;
    this.#nextPhase = phase;
    this.#produced += count;
    this.#discardBefore(index - half + 1);
    return int16ToPcm(output);
  }

  /** Drop buffered input older than absolute sample `first`, which no later output reads. */
  #discardBefore(first: number): void {
    const drop = Math.min(first - this.#bufferStart, this.#bufferLength);
    if (drop <= 0) return;
    this.#bufferStart += drop;
    this.#bufferLength -= drop;
    const initial = this.#initialCapacity();
    if (this.#buffer.length > 4 * initial && this.#bufferLength < initial) {
      // One large push grew the buffer; a long stream should not keep that memory.
      const smaller = new Float32Array(initial);
      smaller.set(this.#buffer.subarray(drop, drop + this.#bufferLength));
      this.#buffer = smaller;
    } else {
      this.#buffer.copyWithin(0, drop, drop + this.#bufferLength);
    }
  }

  /** Room for the filter's history plus a typical engine chunk. */
  #initialCapacity(): number {
    return this.#bank.tapsPerPhase * 4 + 4096;
  }
}
