import { availableParallelism } from 'node:os';
import type { AlignmentGranularity, SynthesisChunk } from '../alignment.ts';
import { ProviderError } from '../errors.ts';
import type { SynthesisRequest, TtsProvider } from '../provider.ts';
import type { WaitQueueOptions } from '../wait-queue.ts';
import type { EngineExit } from './engine.ts';
import { EnginePool, type EnginePoolStats, type EngineSpec } from './engine-pool.ts';
import { ENGINE_OUTPUT_RATES_HZ, type HelperChunk } from './helper/engine-helper.ts';
import { HelperPool } from './helper/helper-pool.ts';
import { EngineLauncher } from './launcher/engine-launcher.ts';
import { DEFAULT_WORDS_PER_MINUTE, wordsPerMinute } from './speech-rate.ts';
import { WavFormatError, WavPcmStream } from './wav-stream.ts';
import { WordMarkAligner } from './word-marks.ts';

/** Settings of the {@link NativeProvider}; every field has a default. */
export interface NativeProviderOptions {
  /** espeak-ng executable, a path or a name on PATH. Default `espeak-ng`. */
  readonly binaryPath?: string;
  /**
   * Most espeak-ng processes alive at once (warm spares included), and most long-lived
   * engines. Default 2 × CPU count for espeak-ng processes, 8 × CPU count for engines.
   */
  readonly maxProcesses?: number;
  /** Idle pre-spawned processes kept for recently used voices; 0 disables. Default 2. */
  readonly warmProcesses?: number;
  /** A warm process unused this long is killed. Default 60 s. */
  readonly warmIdleMs?: number;
  /**
   * Start espeak-ng through a small launcher process instead of from this process, so
   * process starts never block this event loop (they cost more the larger this process
   * is). Default false; the api enables it (`NATIVE_ENGINE_LAUNCHER`).
   */
  readonly launcher?: boolean;
  /**
   * Path of the compiled long-lived engine (`awp-espeak-engine`, built by scripts/setup.sh
   * from native/espeak-engine/). When set, synthesis runs in at most `maxProcesses` of
   * these helpers, one utterance after another, instead of one espeak-ng process per
   * request; phonemization still uses one-shot processes. Default: unset.
   */
  readonly engineHelper?: string;
  /** Bounds of the queue of requests waiting for a process. Default: unbounded. */
  readonly queue?: WaitQueueOptions;
  /**
   * Diagnostic hook, called when an engine process starts serving a request (before the
   * text is written). Tests use it to find the pid; never shown to clients.
   */
  readonly onEngineProcess?: (event: EngineProcessEvent) => void;
}

/** Which process serves which request; see {@link NativeProviderOptions.onEngineProcess}. */
export interface EngineProcessEvent {
  readonly pid: number | undefined;
  readonly providerVoiceId: string;
  readonly wordsPerMinute: number;
}

/** espeak-ng voice names: letters, digits, `-`, `_`, `+` (variant), never a leading `-`. */
const VOICE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_+-]{0,63}$/;
/**
 * A voice derived from recordings carries its own pitch (`-p`, 0..99) and base rate (`-s`,
 * words per minute at speed 1): `en-us+m3/p42/w163`. See src/voices/cloning/native-derivation.ts.
 */
const DERIVED_PATTERN = /^([^/]+)\/p(\d{1,2})\/w(\d{2,3})$/;
/** espeak-ng's pitch when `-p` is not given. */
const DEFAULT_PITCH = 50;

/**
 * The native model: espeak-ng run as a bounded pool of subprocesses (GPL: we only ever
 * talk to it over a process boundary). Yields 22,050 Hz mono PCM while espeak-ng is
 * still synthesizing.
 *
 * - Text goes to stdin (`--stdin`), never through a shell or argv, so a leading `-` is
 *   text. No `-m`: markup is read as plain text.
 * - `speed` maps to `-s` words per minute, see {@link wordsPerMinute}.
 * - Cancellation: when `signal` aborts, the process is killed with SIGKILL, the iterator
 *   throws `signal.reason` once the process has exited, and the pool slot is free again.
 *   Breaking out of the loop early does the same without throwing.
 * - A missing binary, a crash or a non-zero exit fails only that request with
 *   `ProviderError('unavailable')` (public `provider_error`, retryable).
 *
 * @example
 * const provider = new NativeProvider({ maxProcesses: 4 });
 * for await (const chunk of provider.synthesize({ text: 'Hello.', providerVoiceId: 'en-us+f3' }, signal)) {
 *   sink.write(chunk.data);
 * }
 */
export class NativeProvider implements TtsProvider {
  readonly name = 'native';
  /** espeak-ng's own rate; the long-lived engine also delivers the caller's preferred rate. */
  readonly nativeSampleRateHz = 22_050;
  /**
   * Word timings come from espeak-ng's word events, which only the long-lived engine
   * reports: with one espeak-ng process per request the voices cannot align.
   */
  readonly alignment: readonly AlignmentGranularity[];
  readonly #binaryPath: string;
  readonly #pool: EnginePool;
  readonly #onEngineProcess: ((event: EngineProcessEvent) => void) | undefined;
  readonly #launcher: EngineLauncher | undefined;
  readonly #helpers: HelperPool | undefined;

  constructor(options: NativeProviderOptions = {}) {
    this.#binaryPath = options.binaryPath ?? 'espeak-ng';
    this.#onEngineProcess = options.onEngineProcess;
    this.#launcher = options.launcher ? new EngineLauncher() : undefined;
    const launcher = this.#launcher;
    const maxProcesses = options.maxProcesses ?? Math.max(1, 2 * availableParallelism());
    this.alignment = options.engineHelper ? ['word'] : [];
    this.#helpers = options.engineHelper
      ? new HelperPool({
          binaryPath: options.engineHelper,
          // An engine is leased for one utterance's synthesis, which is short but waits on
          // this event loop at its start and end; with 2 per CPU, 100 streams at once queued
          // for engines while CPU was left (first audio p50 700 ms against 530 ms with 8 per
          // CPU). An idle engine and its voice template cost about 2 MB.
          maxHelpers: options.maxProcesses ?? Math.max(1, 8 * availableParallelism()),
          ...(options.queue ? { queue: options.queue } : {}),
        })
      : undefined;
    this.#pool = new EnginePool({
      ...(launcher ? { startEngine: (bin, args, key) => launcher.start(bin, args, key) } : {}),
      binaryPath: this.#binaryPath,
      maxProcesses,
      warmProcesses: options.warmProcesses ?? 2,
      warmIdleMs: options.warmIdleMs ?? 60_000,
      ...(options.queue ? { queue: options.queue } : {}),
    });
  }

  /** Current pool occupancy (for metrics and tests). */
  get stats(): EnginePoolStats {
    return this.#helpers?.stats ?? this.#pool.stats;
  }

  /**
   * Kills idle warm processes and stops keeping them; requests in flight finish. With the
   * launcher, it is stopped last (ending anything still running).
   */
  async close(): Promise<void> {
    await this.#helpers?.close();
    await this.#pool.close();
    await this.#launcher?.close();
  }

  async *synthesize(
    request: SynthesisRequest,
    signal: AbortSignal,
  ): AsyncGenerator<SynthesisChunk> {
    signal.throwIfAborted();
    if (request.alignment !== undefined && !this.alignment.includes(request.alignment)) {
      throw new ProviderError('rejected', `native voices cannot align by ${request.alignment}`);
    }
    const derived = DERIVED_PATTERN.exec(request.providerVoiceId);
    const voice = derived?.[1] ?? request.providerVoiceId;
    if (!VOICE_PATTERN.test(voice)) {
      throw new ProviderError('rejected', `invalid espeak-ng voice name ${JSON.stringify(voice)}`);
    }
    const baseRate = derived ? Number(derived[3]) / DEFAULT_WORDS_PER_MINUTE : 1;
    const wpm = wordsPerMinute((request.speed ?? 1) * baseRate);
    const pitch = derived ? ['-p', String(Math.min(99, Number(derived[2])))] : [];
    if (this.#helpers !== undefined) {
      const pitchValue = derived ? Math.min(99, Number(derived[2])) : DEFAULT_PITCH;
      yield* this.#synthesizeWithHelper(this.#helpers, voice, wpm, pitchValue, request, signal);
      return;
    }
    const spec: EngineSpec = {
      key: `${voice}|${wpm}|${pitch.join('')}`,
      args: ['--stdout', '--stdin', '-b', '1', '-v', voice, '-s', String(wpm), ...pitch],
    };

    const engine = await this.#pool.acquire(spec, signal);
    const onAbort = () => engine.kill();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      this.#onEngineProcess?.({ pid: engine.pid, providerVoiceId: voice, wordsPerMinute: wpm });
      signal.throwIfAborted();
      // NUL would end espeak-ng's text early; it is never speakable anyway.
      engine.sendText(request.text.replaceAll('\0', ' '));

      const wav = new WavPcmStream();
      let readError: unknown;
      try {
        for await (const bytes of engine.stdout) {
          if (signal.aborted) break;
          const data = wav.push(bytes as Buffer);
          const format = wav.format;
          if (data.length > 0 && format !== undefined) {
            yield { data, sampleRateHz: format.sampleRateHz };
          }
          if (signal.aborted) break;
        }
      } catch (error) {
        readError = error;
      }
      signal.throwIfAborted();

      const exit = await engine.exited;
      this.#throwIfFailed(exit, engine.stderr);
      if (readError instanceof WavFormatError) {
        throw new ProviderError('unavailable', `espeak-ng output: ${readError.message}`, {
          cause: readError,
        });
      }
      if (readError !== undefined) {
        throw new ProviderError('unavailable', 'reading espeak-ng output failed', {
          cause: readError,
        });
      }
      try {
        wav.end();
      } catch (error) {
        throw new ProviderError('unavailable', `espeak-ng output: ${(error as Error).message}`, {
          cause: error,
        });
      }
      this.#pool.noteSuccess(spec);
    } finally {
      signal.removeEventListener('abort', onAbort);
      engine.kill();
      await engine.exited;
    }
  }

  async *#synthesizeWithHelper(
    helpers: HelperPool,
    voice: string,
    wpm: number,
    pitch: number,
    request: SynthesisRequest,
    signal: AbortSignal,
  ): AsyncGenerator<SynthesisChunk> {
    const helper = await helpers.acquire(signal);
    let leased = true;
    // The helper goes back to the pool as soon as the engine has finished the utterance,
    // not when the consumer has read it all: a busy event loop or a slow client must not
    // hold an engine that has nothing left to do.
    const release = () => {
      if (!leased) return;
      leased = false;
      helpers.release(helper);
    };
    try {
      this.#onEngineProcess?.({ pid: helper.pid, providerVoiceId: voice, wordsPerMinute: wpm });
      const text = request.text.replaceAll('\0', ' ');
      const rate = request.preferredSampleRateHz;
      // The engine resamples (libsoxr) to the rate the caller delivers, so the audio needs
      // no resampling stage of its own in the service.
      const outputRateHz =
        rate !== undefined &&
        Number.isInteger(rate) &&
        rate >= ENGINE_OUTPUT_RATES_HZ.min &&
        rate <= ENGINE_OUTPUT_RATES_HZ.max
          ? rate
          : undefined;
      const marks = request.alignment === 'word';
      const audio = helper.synthesize(
        {
          voice,
          wordsPerMinute: wpm,
          pitch,
          text,
          marks,
          ...(outputRateHz ? { outputRateHz } : {}),
        },
        signal,
        release,
      );
      yield* marks ? withWordTimings(audio, text) : audio;
    } finally {
      release();
    }
  }

  /**
   * IPA phonemes of `lines` in espeak-ng `language`, one output line per input line (the
   * front end of the neural voices). The letters of a multi-letter phoneme are joined by
   * `^` (`--tie`), so `t^ʃ` (one affricate) differs from `t` + `ʃ`. Runs through the same
   * bounded pool and process boundary as synthesis; `-q` writes no audio. espeak-ng also
   * breaks lines at clause punctuation, so callers pass text without it.
   */
  async phonemize(
    lines: readonly string[],
    language: string,
    signal: AbortSignal,
  ): Promise<string[]> {
    signal.throwIfAborted();
    if (!VOICE_PATTERN.test(language)) {
      throw new ProviderError(
        'rejected',
        `invalid espeak-ng voice name ${JSON.stringify(language)}`,
      );
    }
    const spec: EngineSpec = {
      key: `ipa|${language}`,
      // No --stdin: without it espeak-ng reads stdin line by line, one IPA line per line.
      args: ['-q', '--ipa', '--tie=^', '-b', '1', '-v', language],
    };
    const engine = await this.#pool.acquire(spec, signal);
    const onAbort = () => engine.kill();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      signal.throwIfAborted();
      engine.sendText(lines.map((line) => line.replaceAll('\0', ' ')).join('\n'));
      const parts: Buffer[] = [];
      for await (const bytes of engine.stdout) parts.push(bytes as Buffer);
      signal.throwIfAborted();
      this.#throwIfFailed(await engine.exited, engine.stderr);
      this.#pool.noteSuccess(spec);
      return Buffer.concat(parts)
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0);
    } finally {
      signal.removeEventListener('abort', onAbort);
      engine.kill();
      await engine.exited;
    }
  }

  #throwIfFailed(exit: EngineExit, stderr: string): void {
    const detail = stderr === '' ? '' : `: ${stderr}`;
    if (exit.spawnError !== undefined) {
      const reason =
        exit.spawnError.code === 'ENOENT'
          ? 'not found'
          : exit.spawnError.code === 'EACCES'
            ? 'not executable'
            : `could not start (${exit.spawnError.code ?? exit.spawnError.message})`;
      throw new ProviderError('unavailable', `espeak-ng binary ${reason}: ${this.#binaryPath}`, {
        cause: exit.spawnError,
      });
    }
    if (exit.signal !== null) {
      throw new ProviderError('unavailable', `espeak-ng was killed by ${exit.signal}${detail}`);
    }
    if (exit.code !== 0) {
      throw new ProviderError('unavailable', `espeak-ng exited with code ${exit.code}${detail}`);
    }
  }
}

/**
 * The engine's audio with word timings from its marks: each chunk carries the words
 * completed by the marks that came with it, and a last chunk without audio the final word.
 */
async function* withWordTimings(
  audio: AsyncIterable<HelperChunk>,
  text: string,
): AsyncGenerator<SynthesisChunk> {
  const aligner = new WordMarkAligner(text);
  let durationS = 0;
  let sampleRateHz = 0;
  for await (const chunk of audio) {
    sampleRateHz = chunk.sampleRateHz;
    durationS += chunk.data.length / 2 / chunk.sampleRateHz;
    const timings = chunk.marks ? aligner.push(chunk.marks) : [];
    if (chunk.data.length === 0 && timings.length === 0) continue;
    yield { data: chunk.data, sampleRateHz, ...(timings.length > 0 ? { timings } : {}) };
  }
  const last = aligner.finish(durationS);
  if (last.length > 0) yield { data: Buffer.alloc(0), sampleRateHz, timings: last };
}
