import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from '../../observability/logger.ts';
import { cancelledError, SttError } from '../errors.ts';
import {
  encodeFrame,
  FrameDecoder,
  type SidecarMessage,
  sidecarMessageSchema,
} from './protocol.ts';

export interface WhisperSidecarOptions {
  /** Python of the venv scripts/install-whisper.sh made. */
  pythonPath: string;
  /** sidecar.py */
  scriptPath: string;
  /** CTranslate2 Whisper directory (model.bin, config.json, tokenizer.json). */
  modelDir: string;
  beamSize: number;
  /** CTranslate2 intra-op threads; 0 lets it decide. */
  threads: number;
  /** The shortest encoder window, in seconds (sidecar.py, "Encoder window"); 30 is Whisper's full window. */
  minWindowS: number;
  /** Requests waiting behind the one being transcribed; beyond it `overloaded`. */
  maxQueue: number;
  /** Deadline of one transcription once sent, plus the utterance's own duration. */
  requestTimeoutMs: number;
  /** Time the model may take to load before the start counts as failed. */
  startTimeoutMs: number;
  /** Delay before the first restart after a failure; doubles per failure up to the max. */
  restartBackoffMs?: { initial: number; max: number };
  logger: Logger;
}

/** What the sidecar answered for one utterance. */
export interface SidecarTranscription {
  text: string;
  language: string | undefined;
  confidence: number | undefined;
  durationMs: number;
  /** Time the sidecar spent transcribing. */
  elapsedMs: number;
}

/** Per-request overrides. */
export interface SidecarRequestOptions {
  language?: string;
  prompt?: string;
  beamSize?: number;
}

interface Job {
  readonly id: number;
  readonly pcm: Buffer;
  readonly header: Record<string, unknown>;
  readonly deadlineMs: number;
  /** `performance.now()` when the request was made. */
  readonly queuedAt: number;
  resolve(result: SidecarTranscription): void;
  reject(error: SttError): void;
  settled: boolean;
}

interface Running {
  readonly child: ChildProcess;
  ready: boolean;
  /** Killed by us (wedged or off-protocol): takes no more work while it exits. */
  dying: boolean;
  /** Id of the request the sidecar is working on (even when its caller gave up). */
  busyWith: number | undefined;
  deadline: NodeJS.Timeout | undefined;
  startTimer: NodeJS.Timeout | undefined;
  readonly exited: Promise<void>;
}

/**
 * Starts and supervises the Whisper sidecar (sidecar.py) and queues requests for it.
 *
 * One request at a time is in the sidecar (one CPU-bound model); up to `maxQueue` wait.
 * The sidecar starts on `start()` or the first request, and is ready after its handshake.
 * When it dies, the request it was working on fails with a retryable `unavailable` and it
 * is started again after a backoff; waiting requests then go to the new process. A start
 * that fails (exit or timeout before ready) fails every waiting request, retryably. A
 * request past its deadline fails and the sidecar is killed (it may be wedged) and restarted.
 * A cancelled request fails at once; if the sidecar was already working on it, its answer
 * is dropped when it comes.
 */
export class WhisperSidecar {
  readonly #options: WhisperSidecarOptions;
  readonly #log: Logger;
  readonly #queue: Job[] = [];
  #current: Job | undefined;
  #running: Running | undefined;
  #nextId = 1;
  #failures = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #readyWaiters: Array<{ resolve(): void; reject(error: SttError): void }> = [];
  #closed = false;

  constructor(options: WhisperSidecarOptions) {
    this.#options = options;
    this.#log = options.logger;
  }

  /** Process id of the running sidecar, if one runs. */
  get pid(): number | undefined {
    return this.#running?.child.pid;
  }

  /** Starts the sidecar if needed; resolves once it is ready. */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(new SttError('unavailable', 'sidecar closed'));
    if (this.#running?.ready && !this.#running.dying) return Promise.resolve();
    const ready = new Promise<void>((resolve, reject) =>
      this.#readyWaiters.push({ resolve, reject }),
    );
    if (this.#running === undefined && this.#restartTimer === undefined) this.#launch();
    return ready;
  }

  /** Transcribes 16 kHz mono samples. Throws `SttError`. */
  transcribe(
    samples: Int16Array,
    options: SidecarRequestOptions,
    signal: AbortSignal,
  ): Promise<SidecarTranscription> {
    if (signal.aborted) return Promise.reject(cancelledError());
    if (this.#closed) return Promise.reject(new SttError('unavailable', 'sidecar closed'));
    if (this.#queue.length >= this.#options.maxQueue) {
      return Promise.reject(
        new SttError('overloaded', `speech-to-text queue full (${this.#options.maxQueue} waiting)`),
      );
    }
    const id = this.#nextId++;
    const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const durationMs = (samples.length * 1000) / 16_000;
    return new Promise<SidecarTranscription>((resolve, reject) => {
      const onAbort = () => this.#cancel(job);
      const job: Job = {
        id,
        pcm,
        header: {
          op: 'transcribe',
          id,
          language: options.language ?? null,
          beam_size: options.beamSize ?? null,
          prompt: options.prompt ?? null,
        },
        deadlineMs: this.#options.requestTimeoutMs + durationMs,
        queuedAt: performance.now(),
        settled: false,
        resolve: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Stops the sidecar: waiting requests fail, the process is asked to exit, then killed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const closed = new SttError('unavailable', 'sidecar closed');
    for (const job of this.#queue.splice(0)) this.#settle(job, closed);
    if (this.#current) this.#settle(this.#current, closed);
    for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(closed);
    const running = this.#running;
    if (running === undefined) return;
    running.child.stdin?.end(encodeFrame({ op: 'shutdown' }));
    const killTimer = setTimeout(() => running.child.kill('SIGKILL'), 3000);
    await running.exited;
    clearTimeout(killTimer);
  }

  #launch(): void {
    const o = this.#options;
    const args = [
      o.scriptPath,
      '--model-dir',
      o.modelDir,
      '--beam-size',
      String(o.beamSize),
      '--threads',
      String(o.threads),
      '--min-window-s',
      String(o.minWindowS),
    ];
    // A minimal environment: the sidecar needs no credential of the worker's.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C.UTF-8',
      HF_HUB_OFFLINE: '1',
      HF_HUB_DISABLE_TELEMETRY: '1',
      PYTHONUNBUFFERED: '1',
    };
    const child = spawn(o.pythonPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    let exitedResolve!: () => void;
    const running: Running = {
      child,
      ready: false,
      dying: false,
      busyWith: undefined,
      deadline: undefined,
      startTimer: undefined,
      exited: new Promise<void>((resolve) => {
        exitedResolve = resolve;
      }),
    };
    this.#running = running;
    running.startTimer = setTimeout(() => {
      this.#log.warn({ timeoutMs: o.startTimeoutMs }, 'stt sidecar did not become ready in time');
      child.kill('SIGKILL');
    }, o.startTimeoutMs);

    const decoder = new FrameDecoder();
    child.stdout?.on('data', (chunk: Buffer) => {
      let messages: SidecarMessage[];
      try {
        messages = decoder.push(chunk).map((frame) => sidecarMessageSchema.parse(frame.header));
      } catch (error) {
        this.#log.error({ err: error }, 'stt sidecar broke the protocol; restarting it');
        this.#kill(running);
        return;
      }
      for (const message of messages) this.#onMessage(running, message);
    });
    let stderrTail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      const lines = (stderrTail + text).split('\n');
      stderrTail = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') this.#log.debug({ line }, 'stt sidecar');
    });
    // EPIPE when the child died mid-write: the exit handler reports it.
    child.stdin?.on('error', () => {});
    child.on('error', (error) => {
      // Spawn failures (python missing) arrive here, then 'close' follows.
      this.#log.error({ err: error }, 'stt sidecar could not be started');
    });
    child.on('close', (code, signal) => {
      exitedResolve();
      this.#onExit(running, code, signal, stderrTail);
    });
  }

  #onMessage(running: Running, message: SidecarMessage): void {
    if (message.op === 'ready') {
      running.ready = true;
      clearTimeout(running.startTimer);
      this.#log.info({ model: message.model, loadMs: message.load_ms }, 'stt sidecar ready');
      for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
      this.#pump();
      return;
    }
    if (message.id === null || message.id !== running.busyWith) {
      this.#log.error({ message }, 'stt sidecar answered a request it was not given');
      this.#kill(running);
      return;
    }
    clearTimeout(running.deadline);
    running.busyWith = undefined;
    const job = this.#current;
    this.#current = undefined;
    if (job !== undefined && job.id === message.id) {
      if (message.op === 'result') {
        this.#failures = 0;
        const timing = {
          audioMs: message.duration_ms,
          modelMs: message.elapsed_ms,
          windowMs: message.window_ms,
          totalMs: Math.round(performance.now() - job.queuedAt),
        };
        if (message.window_retried) {
          // The short window's transcript was a loop of one phrase; the full one answered.
          this.#log.info(timing, 'stt transcribed again in the full window');
        } else {
          this.#log.debug(timing, 'stt transcribed');
        }
        this.#settle(job, undefined, {
          text: message.text,
          language: message.language ?? undefined,
          confidence: message.confidence ?? undefined,
          durationMs: message.duration_ms,
          elapsedMs: message.elapsed_ms,
        });
      } else {
        const failure = message.kind === 'bad_request' ? 'rejected' : 'unavailable';
        this.#settle(job, new SttError(failure, `stt sidecar: ${message.message}`));
      }
    }
    this.#pump();
  }

  #onExit(
    running: Running,
    code: number | null,
    signal: NodeJS.Signals | null,
    stderrTail: string,
  ): void {
    clearTimeout(running.startTimer);
    clearTimeout(running.deadline);
    if (this.#running === running) this.#running = undefined;
    if (this.#closed) return;
    this.#failures += 1;
    const wasReady = running.ready;
    this.#log.warn(
      { code, signal, wasReady, stderr: stderrTail || undefined },
      'stt sidecar exited',
    );
    const error = new SttError(
      'unavailable',
      wasReady ? 'stt sidecar exited during the request' : 'stt sidecar failed to start',
    );
    if (this.#current) {
      this.#settle(this.#current, error);
      this.#current = undefined;
    }
    if (!wasReady) {
      // Nothing suggests the next start fares better right away: fail what waits.
      for (const job of this.#queue.splice(0)) this.#settle(job, error);
      for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(error);
    }
    if (this.#queue.length > 0 || this.#readyWaiters.length > 0) this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    if (this.#restartTimer !== undefined || this.#running !== undefined || this.#closed) return;
    const { initial, max } = this.#options.restartBackoffMs ?? { initial: 250, max: 10_000 };
    const delay = this.#failures === 0 ? 0 : Math.min(max, initial * 2 ** (this.#failures - 1));
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (!this.#closed && this.#running === undefined) this.#launch();
    }, delay);
  }

  /** Sends the next waiting request when the sidecar is ready and idle. */
  #pump(): void {
    if (this.#closed || this.#queue.length === 0) return;
    const running = this.#running;
    if (running === undefined) {
      this.#scheduleRestart();
      return;
    }
    if (!running.ready || running.dying || running.busyWith !== undefined) return;
    const job = this.#queue.shift();
    if (job === undefined) return;
    this.#current = job;
    running.busyWith = job.id;
    running.deadline = setTimeout(() => {
      this.#log.warn(
        { deadlineMs: job.deadlineMs },
        'stt request past its deadline; restarting the sidecar',
      );
      if (this.#current === job) {
        this.#current = undefined;
        this.#settle(job, new SttError('unavailable', 'speech-to-text request timed out'));
      }
      this.#kill(running);
    }, job.deadlineMs);
    running.child.stdin?.write(encodeFrame(job.header, job.pcm));
  }

  /** Kills a sidecar that cannot be trusted; its exit handler restarts it when work waits. */
  #kill(running: Running): void {
    running.dying = true;
    running.child.kill('SIGKILL');
  }

  #cancel(job: Job): void {
    const index = this.#queue.indexOf(job);
    if (index >= 0) this.#queue.splice(index, 1);
    // In the sidecar already: its answer is dropped when it comes (#current is cleared).
    if (this.#current === job) this.#current = undefined;
    this.#settle(job, cancelledError());
  }

  #settle(job: Job, error: SttError | undefined, result?: SidecarTranscription): void {
    if (job.settled) return;
    job.settled = true;
    if (error !== undefined) job.reject(error);
    else if (result !== undefined) job.resolve(result);
  }
}
