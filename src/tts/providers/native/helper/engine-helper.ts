import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ProviderError } from '../../errors.ts';
import type { EngineExit } from '../engine.ts';

/** Frame header: u8 type, u32 id, u32 payload length (little-endian). See awp-espeak-engine.c. */
const HEADER_BYTES = 9;
/** The framing this code speaks; an engine built from other sources says another. */
const PROTOCOL_VERSION = 3;
/** Output rates the engine resamples to (libsoxr); other requests get its own rate. */
export const ENGINE_OUTPUT_RATES_HZ = { min: 8_000, max: 48_000 } as const;
/** Stop reading the helper's output while this much audio waits for the consumer. */
const HIGH_WATER_BYTES = 256 * 1024;

/** Settings of an {@link EngineHelper}. */
export interface EngineHelperOptions {
  /** Audio waiting for the consumer above which the helper's output is not read (bytes). */
  readonly highWaterBytes?: number;
  /** After the first audio, the least audio handed on at once (bytes). Default 32 KB. */
  readonly holdBytes?: number;
  /** ...unless it has waited this long for more (ms). Default 10. */
  readonly holdMs?: number;
}
/**
 * After an utterance's first audio, which goes out at once, audio is handed on in pieces of
 * at least this many bytes (one `audio` event of PCM, 32 KB), or whatever has come once it
 * has waited {@link HOLD_MS}, or at the utterance's end: fewer, larger chunks for every
 * stage after this one. The engine writes its first ~60 ms buffer alone and then frames of
 * this size, so the hold matters when marks split its frames.
 */
const HOLD_BYTES = 32 * 1024;
const HOLD_MS = 10;
/** A cancelled request must end this soon, else the helper is killed and replaced. */
const CANCEL_GRACE_MS = 2_000;
const MAX_STDERR_BYTES = 4096;
/** Request ids wrap here (4 bytes on the wire). */
const MAX_REQUEST_ID = 0xffff_ffff;

/** What one utterance needs: voice, rate, pitch, the text and the rate to deliver it at. */
export interface HelperUtterance {
  /** espeak-ng voice name, validated by the caller (letters, digits, `-_+`). */
  readonly voice: string;
  readonly wordsPerMinute: number;
  /** 0..99; espeak-ng's default is 50. */
  readonly pitch: number;
  readonly text: string;
  /**
   * Rate of the PCM to yield, resampled by the engine (libsoxr, high quality); within
   * {@link ENGINE_OUTPUT_RATES_HZ}. Default: the engine's own rate (22,050 Hz).
   */
  readonly outputRateHz?: number;
  /** Ask for espeak-ng's word and boundary marks (for alignment). Default false. */
  readonly marks?: boolean;
}

/**
 * One of espeak-ng's events: a word starts (`word`) or a clause, sentence or the utterance
 * ends (`boundary`). `timeS` is its position in the utterance's audio (exact to the
 * engine's sample); `textPosition` counts code points from 1, `length` the word's code points.
 */
export interface EngineMark {
  readonly kind: 'word' | 'boundary';
  readonly timeS: number;
  readonly textPosition: number;
  readonly length: number;
}

/** Audio of one utterance as the engine produced it, with the marks that came before it. */
export interface HelperChunk {
  readonly data: Buffer;
  readonly sampleRateHz: number;
  readonly marks?: readonly EngineMark[];
}

interface ActiveRequest {
  readonly id: number;
  readonly chunks: Buffer[];
  readonly marks: EngineMark[];
  queuedBytes: number;
  done: boolean;
  error: ProviderError | undefined;
  wake: (() => void) | undefined;
  /** Called when the engine has finished the utterance (see {@link EngineHelper.synthesize}). */
  engineDone: (() => void) | undefined;
}

/**
 * One long-lived `awp-espeak-engine` process (native/espeak-engine/awp-espeak-engine.c):
 * libespeak-ng behind a process boundary, synthesizing one utterance after another over
 * framed stdin/stdout. It serves one request at a time; the pool hands it out.
 */
export class EngineHelper {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #binaryPath: string;
  readonly exited: Promise<EngineExit>;
  #exit: EngineExit | undefined;
  #pending: Buffer = Buffer.alloc(0);
  #sampleRateHz: number | undefined;
  #ready: Promise<number>;
  #resolveReady: (rate: number) => void = () => {};
  #active: ActiveRequest | undefined;
  #nextId = 1;
  #stderr = '';
  #paused = false;
  /** Set when the engine speaks another protocol version (built from other sources). */
  #startError: ProviderError | undefined;

  readonly #highWaterBytes: number;
  readonly #holdBytes: number;
  readonly #holdMs: number;

  constructor(binaryPath: string, options: EngineHelperOptions = {}) {
    this.#binaryPath = binaryPath;
    this.#highWaterBytes = options.highWaterBytes ?? HIGH_WATER_BYTES;
    this.#holdBytes = options.holdBytes ?? HOLD_BYTES;
    this.#holdMs = options.holdMs ?? HOLD_MS;
    this.#ready = new Promise((resolve) => {
      this.#resolveReady = resolve;
    });
    const child = spawn(binaryPath, [], { stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    this.#child = child;
    child.stdin.on('error', () => {});
    child.stdout.on('data', (bytes: Buffer) => this.#onData(bytes));
    child.stderr.on('data', (bytes: Buffer) => {
      if (this.#stderr.length < MAX_STDERR_BYTES) {
        this.#stderr += bytes.toString('utf8').slice(0, MAX_STDERR_BYTES - this.#stderr.length);
      }
    });
    this.exited = new Promise((resolve) => {
      const finish = (exit: EngineExit) => {
        this.#exit ??= exit;
        this.#failActive(this.#exitError(this.#exit));
        this.#resolveReady(0);
        resolve(this.#exit);
      };
      child.once('exit', (code, signal) => finish({ code, signal }));
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) finish({ code: null, signal: null, spawnError: error });
      });
    });
  }

  /** Process id; undefined when the start failed. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** True until the process ends. */
  get alive(): boolean {
    return this.#exit === undefined && this.#child.exitCode === null;
  }

  /** Whether a request is in progress (a cancelled one counts until it has ended). */
  get busy(): boolean {
    return this.#active !== undefined;
  }

  /** Kills the process at once; a request in progress fails as killed. */
  kill(): void {
    if (this.#exit === undefined && this.#child.pid !== undefined) this.#child.kill('SIGKILL');
  }

  /** Whether this helper may keep the Node event loop alive (idle ones may not). */
  setReferenced(referenced: boolean): void {
    const child = this.#child;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown[]) {
      const h = handle as { ref?: () => void; unref?: () => void };
      if (referenced) h.ref?.();
      else h.unref?.();
    }
  }

  /**
   * Synthesizes one utterance, yielding 16-bit mono PCM as the engine produces it: the
   * first audio at once, then pieces of at least `holdBytes` (or what came within
   * `holdMs`), then the rest at the end (see {@link HOLD_BYTES}). When
   * `signal` aborts, the engine is told to stop and the generator throws `signal.reason`
   * once it has (or once it was killed for not stopping in time). A crash fails the
   * request with a retryable `ProviderError('unavailable')`.
   *
   * `engineDone` is called as soon as the engine has finished the utterance, when all of
   * its audio is held here: from then on the helper may serve another request (its owner
   * can give it back to the pool) while this generator still yields what it holds. A slow
   * consumer so holds only the audio it has not read yet, never the engine.
   */
  async *synthesize(
    utterance: HelperUtterance,
    signal: AbortSignal,
    engineDone?: () => void,
  ): AsyncGenerator<HelperChunk> {
    if (this.#active !== undefined) throw new Error('engine helper is busy');
    const engineRateHz = this.#sampleRateHz ?? (await this.#ready);
    if (this.#exit !== undefined) throw this.#exitError(this.#exit);
    const sampleRateHz = utterance.outputRateHz ?? engineRateHz;
    const id = this.#nextId;
    this.#nextId = id >= MAX_REQUEST_ID ? 1 : id + 1;
    const active: ActiveRequest = {
      id,
      chunks: [],
      marks: [],
      queuedBytes: 0,
      done: false,
      error: undefined,
      wake: undefined,
      engineDone,
    };
    this.#active = active;
    this.#child.stdin.write(encodeRequest(id, utterance));
    let finished = false;
    const onAbort = () => active.wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    let first = true;
    /** Audio waits for more (see HOLD_BYTES) until this fires; `held` once it has. */
    let hold: NodeJS.Timeout | undefined;
    let held = false;
    try {
      while (!signal.aborted) {
        if (active.chunks.length > 0) {
          const ended = active.done || active.error !== undefined;
          if (first || ended || held || active.queuedBytes >= this.#holdBytes) {
            clearTimeout(hold);
            hold = undefined;
            held = false;
            first = false;
            // Everything that arrived since the last yield goes out as one chunk: each
            // chunk costs every stage after this one.
            const chunks = active.chunks.splice(0);
            const chunk = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            active.queuedBytes -= chunk.length;
            if (
              this.#active === active &&
              this.#paused &&
              active.queuedBytes < this.#highWaterBytes / 2
            ) {
              this.#resume();
            }
            yield withMarks({ data: chunk, sampleRateHz }, active.marks);
            continue;
          }
          hold ??= setTimeout(() => {
            held = true;
            active.wake?.();
          }, this.#holdMs);
        } else {
          if (active.error !== undefined) throw active.error;
          if (active.done) {
            // The utterance's last marks can follow its last audio.
            if (active.marks.length > 0) {
              yield withMarks({ data: Buffer.alloc(0), sampleRateHz }, active.marks);
            }
            break;
          }
        }
        await new Promise<void>((resolve) => {
          active.wake = resolve;
        });
        active.wake = undefined;
      }
      finished = !signal.aborted;
    } finally {
      clearTimeout(hold);
      signal.removeEventListener('abort', onAbort);
      // Cancelled, broken out of or aborted: stop the engine before it serves anyone else.
      if (!finished && !active.done) await this.#cancel(active);
      // Output paused for a consumer that left after the engine had failed must flow again,
      // or the next request on this helper would wait forever with its engine blocked
      // writing; a helper already serving another request keeps that request's pause.
      active.chunks.length = 0;
      active.marks.length = 0;
      active.queuedBytes = 0;
      if (this.#active === undefined || this.#active === active) this.#resume();
    }
    signal.throwIfAborted();
  }

  async #cancel(active: ActiveRequest): Promise<void> {
    active.chunks.length = 0;
    active.queuedBytes = 0;
    this.#resume();
    if (this.alive) this.#child.stdin.write(frame('C', active.id, Buffer.alloc(0)));
    const timer = setTimeout(() => this.kill(), CANCEL_GRACE_MS);
    while (!active.done && active.error === undefined) {
      await new Promise<void>((resolve) => {
        active.wake = resolve;
      });
    }
    clearTimeout(timer);
  }

  #onData(bytes: Buffer): void {
    let data = this.#pending.length === 0 ? bytes : Buffer.concat([this.#pending, bytes]);
    let offset = 0;
    while (data.length - offset >= HEADER_BYTES) {
      const length = data.readUInt32LE(offset + 5);
      const end = offset + HEADER_BYTES + length;
      if (data.length < end) break;
      this.#onFrame(
        String.fromCharCode(data[offset]!),
        data.readUInt32LE(offset + 1),
        data.subarray(offset + HEADER_BYTES, end),
      );
      offset = end;
    }
    data = data.subarray(offset);
    // Copied so a small remainder does not keep a large chunk alive.
    this.#pending = data.length === 0 ? Buffer.alloc(0) : Buffer.from(data);
  }

  #onFrame(type: string, id: number, payload: Buffer): void {
    if (type === 'R') {
      const version = payload.length >= 8 ? payload.readUInt32LE(4) : 1;
      if (version !== PROTOCOL_VERSION) {
        this.#startError = new ProviderError(
          'unavailable',
          `${this.#binaryPath} speaks protocol ${version}, not ${PROTOCOL_VERSION}: rebuild it with bash scripts/build-engine.sh`,
        );
        this.kill();
        return;
      }
      this.#sampleRateHz = payload.readUInt32LE(0);
      this.#resolveReady(this.#sampleRateHz);
      return;
    }
    const active = this.#active;
    if (active === undefined || active.id !== id) return;
    if (type === 'A') {
      if (payload.length === 0) return;
      active.chunks.push(payload);
      active.queuedBytes += payload.length;
      if (active.queuedBytes > this.#highWaterBytes && !this.#paused) {
        this.#paused = true;
        this.#child.stdout.pause();
      }
    } else if (type === 'M') {
      active.marks.push(decodeMark(payload, this.#sampleRateHz ?? 1));
      return;
    } else if (type === 'E') {
      active.done = true;
      this.#active = undefined;
      // Reading may have paused for this request's backlog (its end frame can come in the
      // read that paused): the next request's output must flow.
      this.#resume();
      active.engineDone?.();
    } else if (type === 'X') {
      active.error = new ProviderError('unavailable', `espeak-ng: ${payload.toString('utf8')}`);
      this.#active = undefined;
    }
    active.wake?.();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#child.stdout.resume();
  }

  #failActive(error: ProviderError): void {
    const active = this.#active;
    if (active === undefined) return;
    this.#active = undefined;
    active.error = error;
    active.wake?.();
  }

  #exitError(exit: EngineExit): ProviderError {
    if (this.#startError !== undefined) return this.#startError;
    const detail = this.#stderr.trim() === '' ? '' : `: ${this.#stderr.trim()}`;
    if (exit.spawnError !== undefined) {
      const reason = exit.spawnError.code === 'ENOENT' ? 'not found' : 'could not start';
      return new ProviderError('unavailable', `espeak-ng engine ${reason}: ${this.#binaryPath}`, {
        cause: exit.spawnError,
      });
    }
    if (exit.signal !== null) {
      return new ProviderError('unavailable', `espeak-ng engine was killed by ${exit.signal}`);
    }
    return new ProviderError(
      'unavailable',
      `espeak-ng engine exited with code ${exit.code}${detail}`,
    );
  }
}

function frame(type: 'S' | 'C', id: number, payload: Buffer): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(payload.length, 5);
  return Buffer.concat([header, payload]);
}

/**
 * The 'S' frame: u16 words per minute, u8 pitch, u8 voice length, u32 output rate (0: the
 * engine's own), u8 flags (bit 0: marks), voice, UTF-8 text.
 */
function encodeRequest(id: number, utterance: HelperUtterance): Buffer {
  const voice = Buffer.from(utterance.voice, 'latin1');
  const text = Buffer.from(utterance.text, 'utf8');
  const head = Buffer.allocUnsafe(9);
  head.writeUInt16LE(utterance.wordsPerMinute, 0);
  head.writeUInt8(Math.max(0, Math.min(99, Math.round(utterance.pitch))), 2);
  head.writeUInt8(voice.length, 3);
  head.writeUInt32LE(utterance.outputRateHz ?? 0, 4);
  head.writeUInt8(utterance.marks ? 1 : 0, 8);
  return frame('S', id, Buffer.concat([head, voice, text]));
}

/** The 'M' frame: u8 kind (`w` or `b`), u32 sample, u32 text position, u32 length. */
function decodeMark(payload: Buffer, engineRateHz: number): EngineMark {
  return {
    kind: payload[0] === 0x77 ? 'word' : 'boundary',
    timeS: payload.readUInt32LE(1) / engineRateHz,
    textPosition: payload.readUInt32LE(5),
    length: payload.readUInt32LE(9),
  };
}

/** `chunk` with the marks received so far, which are handed over (the list is emptied). */
function withMarks(chunk: HelperChunk, marks: EngineMark[]): HelperChunk {
  return marks.length === 0 ? chunk : { ...chunk, marks: marks.splice(0) };
}
