import { STT_SAMPLE_RATE_HZ, type SttStream } from '../stt/provider.ts';
import { VAD_WINDOW_SAMPLES } from '../stt/vad/protocol.ts';
import { SpeechDetector } from '../stt/vad/speech-detector.ts';
import { UtteranceGate } from '../stt/vad/utterance-gate.ts';
import type { VadStream, VoiceActivity } from '../stt/vad/voice-activity.ts';

/** Who asked for a `flush()` of the recognition stream. */
export type FlushOrigin = 'client' | 'vad';

const SAMPLES_PER_MS = STT_SAMPLE_RATE_HZ / 1000;

/** Options of {@link UtteranceRouter.open}. */
export interface UtteranceRouterOptions {
  /** The session's recognition stream. */
  stream: SttStream;
  /** Set when the server finds utterance ends (engines that transcribe at `flush()`). */
  voiceActivity?: VoiceActivity | undefined;
  /** Silence inside speech after which an engine may start early; 0: never. */
  pauseMs: number;
  /** The voice-activity model failed: the session cannot go on. */
  failed(error: Error): void;
}

/**
 * Takes a session's 16 kHz audio to its recognition stream and decides where utterances
 * end. With voice activity (engines that transcribe whole utterances: the embedded Whisper
 * and the OpenAI-compatible endpoint) only speech reaches the engine, with a 600 ms
 * lead-in (the worker's `UtteranceGate`), and Silero's end of speech (450 ms of silence)
 * flushes it; without (streaming engines, or `endpointing: "manual"`) every sample goes
 * through and utterances end at the engine's own endpoints or the client's `flush`. A
 * client's `flush` always ends the utterance at once. Offsets the engine reports count
 * the audio it was given; {@link sessionMs} turns them into offsets in the session's audio.
 */
export class UtteranceRouter {
  /** Origins of the `flush()` calls whose `flushed` has not come back yet, oldest first. */
  readonly flushes: FlushOrigin[] = [];
  readonly #stream: SttStream;
  readonly #vad: VadStream | undefined;
  readonly #gate: UtteranceGate | undefined;
  readonly #detector: SpeechDetector | undefined;
  /** Samples the voice activity has reported on (the session's audio clock when gated). */
  #reportedSamples = 0;
  /** Samples given to the engine. */
  #engineSamples = 0;
  /** Where each run of contiguous engine audio starts, and its offset into the session's. */
  readonly #runs: { engineStart: number; offset: number }[] = [{ engineStart: 0, offset: 0 }];

  private constructor(options: UtteranceRouterOptions, vad: VadStream | undefined) {
    this.#stream = options.stream;
    this.#vad = vad;
    if (vad) {
      this.#gate = new UtteranceGate(true);
      this.#detector = new SpeechDetector({
        windowMs: VAD_WINDOW_SAMPLES / SAMPLES_PER_MS,
        pauseMs: options.pauseMs,
      });
    }
  }

  static async open(options: UtteranceRouterOptions): Promise<UtteranceRouter> {
    let onWindow: (samples: Int16Array, probability: number) => void = () => {};
    const vad = await options.voiceActivity?.open({
      window: (samples, probability) => onWindow(samples, probability),
      failed: (error) => options.failed(error),
    });
    const router = new UtteranceRouter(options, vad);
    onWindow = (samples, probability) => router.#window(samples, probability);
    return router;
  }

  /** 16 kHz samples of the session, in order. */
  push(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (this.#vad) this.#vad.push(samples);
    else this.#feed([samples], this.#engineSamples + samples.length);
  }

  /** The client's `flush`: the utterance so far is finalized now. */
  async flush(): Promise<void> {
    if (this.#vad) {
      await this.#vad.drained();
      if (this.#detector?.speaking) {
        this.#detector.reset();
        this.#gate?.close();
      }
    }
    this.#flushEngine('client');
  }

  /** No more audio (`stop`, or the client left): the rest goes to the engine, which ends. */
  async end(tail: Int16Array): Promise<void> {
    if (this.#vad) {
      this.#vad.push(tail);
      await this.#vad.drained();
      const rest = this.#vad.takeTail();
      if (this.#gate?.isOpen) {
        this.#reportedSamples += rest.length;
        this.#feed(this.#gate.push(rest).chunks, this.#reportedSamples);
        this.#gate.close();
      }
    } else {
      this.push(tail);
    }
    this.#stream.end();
  }

  /** Milliseconds into the session's audio of an offset the engine reported. */
  sessionMs(engineMs: number): number {
    const engineSample = Math.round(engineMs * SAMPLES_PER_MS);
    let offset = 0;
    for (const run of this.#runs) {
      if (run.engineStart > engineSample) break;
      offset = run.offset;
    }
    return Math.round((engineSample + offset) / SAMPLES_PER_MS);
  }

  close(): void {
    this.#vad?.close();
  }

  /** One window of voice activity, in order. */
  #window(samples: Int16Array, probability: number): void {
    const gate = this.#gate as UtteranceGate;
    const change = this.#detector?.push(probability);
    if (change === 'start') gate.open();
    this.#reportedSamples += samples.length;
    this.#feed(gate.push(samples).chunks, this.#reportedSamples);
    if (change === 'pause') this.#stream.silenceStarted?.();
    else if (change === 'resume') this.#stream.speechResumed?.();
    else if (change === 'end') {
      gate.close();
      this.#flushEngine('vad');
    }
  }

  /** Gives the engine `chunks`, the session's audio that ends at `sessionEnd` samples. */
  #feed(chunks: readonly Int16Array[], sessionEnd: number): void {
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    if (length === 0) return;
    const offset = sessionEnd - length - this.#engineSamples;
    if (offset !== this.#runs.at(-1)?.offset) {
      this.#runs.push({ engineStart: this.#engineSamples, offset });
    }
    for (const chunk of chunks) this.#stream.pushAudio(chunk);
    this.#engineSamples += length;
  }

  #flushEngine(origin: FlushOrigin): void {
    this.flushes.push(origin);
    this.#stream.flush();
  }
}
