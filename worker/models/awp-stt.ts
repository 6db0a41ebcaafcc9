import {
  type APIConnectOptions,
  type AudioBuffer,
  asLanguageCode,
  mergeFrames,
  stt,
} from '@livekit/agents';
import { type AudioFrame, AudioResampler } from '@livekit/rtc-node';
import {
  STT_SAMPLE_RATE_HZ,
  type SttEvent,
  type SttProvider,
  type SttStream,
  samplesToMs,
} from '../../src/stt/provider.ts';
import { UtteranceGate } from '../../src/stt/vad/utterance-gate.ts';

export interface AwpSttOptions {
  provider: SttProvider;
  /** Language of the user's speech (ISO 639-1); omitted: the engine's default. */
  language?: string;
  /** Milliseconds of user speech sent to the engine, once per utterance. */
  onAudio?: (durationMs: number) => void;
  /**
   * Hand the framework the engine's transcript of the user's pause as a preflight
   * transcript (its preemptive generation asks the model with it); see `SttOptions`.
   */
  preflight?: boolean;
}

/** How long `commitUtterance` waits for the engine's finals before the caller goes on. */
const DEFAULT_FLUSH_TIMEOUT_MS = 15_000;
/** How long `commitUtterance` waits for the utterance's audio (its backlog and tail). */
const DEFAULT_CAPTURE_TIMEOUT_MS = 6_000;

/** Whether `promise` settled within `timeoutMs`. */
async function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * The LiveKit `stt.STT` over our `SttProvider` seam, as a streaming recognizer: the
 * framework feeds every microphone frame to `stream()`; the session tells us where an
 * utterance starts (`utteranceStarted`: Silero's start of speech, or push-to-talk start) and
 * ends (`flush`: Silero's end of speech, or push-to-talk commit). The engine's finals and
 * interims become the framework's transcript events, so a flush yields the user's turn at
 * once and interim captions (Deepgram) reach `lk.transcription`.
 *
 * Engines that only transcribe whole utterances (Whisper, the OpenAI endpoint) receive only
 * the audio of utterances (with a short lead-in from before the VAD fired), so silence
 * between turns is neither transcribed nor billed; streaming engines receive everything.
 */
export class AwpStt extends stt.STT {
  label: string;
  readonly #streams = new Set<AwpSpeechStream>();
  /** Between `utteranceStarted` and `flush`: streams the framework opens then start open. */
  #inUtterance = false;
  /** Push-to-talk: every engine, streaming or not, hears only the held utterances. */
  #pushToTalk = false;

  constructor(readonly options: AwpSttOptions) {
    super({ streaming: true, interimResults: options.provider.capabilities.interimResults });
    this.label = `awp.stt.${options.provider.name}`;
  }

  override get provider(): string {
    return this.options.provider.name;
  }

  /** Whether audio outside utterances is held back from the engine (see `gated`). */
  setPushToTalk(on: boolean): void {
    this.#pushToTalk = on;
    for (const stream of this.#streams) stream.setGated(this.gated);
  }

  /**
   * Whether streams pass only utterances: always for utterance engines (Whisper, the OpenAI
   * endpoint), and for streaming engines in push-to-talk.
   */
  get gated(): boolean {
    return this.#pushToTalk || !this.options.provider.capabilities.streaming;
  }

  /** The user started speaking (or pressed push-to-talk): open the utterance. */
  utteranceStarted(): void {
    this.#inUtterance = true;
    for (const stream of this.#streams) stream.utteranceStarted();
  }

  /** Push-to-talk cancel: no utterance is open (the framework drops what was captured). */
  discardUtterance(): void {
    this.#inUtterance = false;
    for (const stream of this.#streams) stream.closeGate();
  }

  /**
   * The user paused mid-utterance (a short silence, before the VAD's end of speech): an
   * utterance engine may start transcribing (BufferedSttStream, early start).
   */
  silenceStarted(): void {
    for (const stream of this.#streams) stream.mark(SILENCE_STARTED);
  }

  /** Speech came back after `silenceStarted()`. */
  speechResumed(): void {
    for (const stream of this.#streams) stream.mark(SPEECH_RESUMED);
  }

  /** The utterance ended: the engine finalizes what it heard. */
  flush(): void {
    this.#inUtterance = false;
    for (const stream of this.#streams) stream.flushUtterance();
  }

  /**
   * Push-to-talk commit: ends the utterance once the audio captured until now (by the
   * audio clock, see UtteranceGate) and `tailMs` more have reached the engine, and resolves
   * then, with `transcribed`: settled once the utterance's finals are handed to the
   * framework. The capture waits `captureTimeoutMs` at most (no audio arriving), the
   * transcription `timeoutMs` (a stuck engine); then the utterance ends with what it has.
   */
  async commitUtterance(
    tailMs: number,
    captureTimeoutMs = DEFAULT_CAPTURE_TIMEOUT_MS,
    timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS,
  ): Promise<{ transcribed: Promise<void> }> {
    this.#inUtterance = false;
    const streams = [...this.#streams];
    const commits = streams.map((stream) => stream.commitAfter(tailMs));
    const captured = await within(Promise.all(commits.map((c) => c.captured)), captureTimeoutMs);
    if (!captured) for (const stream of streams) stream.forceCommit();
    return {
      transcribed: within(Promise.all(commits.map((c) => c.transcribed)), timeoutMs).then(
        () => undefined,
      ),
    };
  }

  protected async _recognize(
    buffer: AudioBuffer,
    abortSignal?: AbortSignal,
  ): Promise<stt.SpeechEvent> {
    const merged = mergeFrames(buffer);
    let samples = merged.data;
    if (merged.channels !== 1 || merged.sampleRate !== STT_SAMPLE_RATE_HZ) {
      const resampler = new AudioResampler(merged.sampleRate, STT_SAMPLE_RATE_HZ, merged.channels);
      const frames = [...resampler.push(merged), ...resampler.flush()];
      const mono = mergeFrames(frames);
      samples = downmix(mono.data, mono.channels);
    }
    this.options.onAudio?.(Math.round(samplesToMs(samples.length)));
    const signal = abortSignal ?? new AbortController().signal;
    const result = await this.options.provider.transcribe(
      samples,
      this.options.language ? { language: this.options.language } : {},
      signal,
    );
    return speechEvent(stt.SpeechEventType.FINAL_TRANSCRIPT, {
      text: result.text,
      language: result.language ?? this.options.language,
      startMs: result.startMs,
      endMs: result.endMs,
      confidence: result.confidence,
    });
  }

  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    const stream = new AwpSpeechStream(this, options?.connOptions, () =>
      this.#streams.delete(stream),
    );
    this.#streams.add(stream);
    // The framework restarts its stream when a user turn is cleared (push-to-talk start).
    if (this.#inUtterance) stream.utteranceStarted();
    return stream;
  }
}

/** Markers queued with the audio, so the engine sees them after the frames before them. */
const SILENCE_STARTED = Symbol('silence started');
const SPEECH_RESUMED = Symbol('speech resumed');
type Marker = typeof SILENCE_STARTED | typeof SPEECH_RESUMED;

class AwpSpeechStream extends stt.SpeechStream {
  label = 'awp.stt.stream';
  readonly #owner: AwpStt;
  readonly #gate: UtteranceGate;
  readonly #onClose: () => void;
  /** Resolvers of flushes sent to the engine, in order; each `flushed` event settles one. */
  readonly #flushWaiters: (() => void)[] = [];
  /** A commit waiting for its audio (`commitAfter`): its two resolvers. */
  #pendingCommit: { captured: () => void; transcribed: () => void } | undefined;

  constructor(owner: AwpStt, connOptions: APIConnectOptions | undefined, onClose: () => void) {
    super(owner, STT_SAMPLE_RATE_HZ, connOptions);
    this.#owner = owner;
    this.#onClose = onClose;
    // Streaming engines get everything (their own endpointing and interims need it),
    // except in push-to-talk.
    this.#gate = new UtteranceGate(owner.gated);
  }

  setGated(gated: boolean): void {
    this.#gate.setGated(gated);
  }

  utteranceStarted(): void {
    this.#gate.open();
  }

  closeGate(): void {
    this.#gate.close();
  }

  /**
   * Ends the utterance on the audio clock (UtteranceGate.closeAfter): `captured` settles
   * when its last audio reached the engine, `transcribed` when the engine flushed it.
   */
  commitAfter(tailMs: number): { captured: Promise<void>; transcribed: Promise<void> } {
    if (this.closed || this.input.closed) {
      return { captured: Promise.resolve(), transcribed: Promise.resolve() };
    }
    this.#settleCommit();
    let captured = () => {};
    let transcribed = () => {};
    const promises = {
      captured: new Promise<void>((resolve) => {
        captured = resolve;
      }),
      transcribed: new Promise<void>((resolve) => {
        transcribed = resolve;
      }),
    };
    this.#pendingCommit = { captured, transcribed };
    this.#gate.closeAfter(tailMs);
    return promises;
  }

  /** The audio of a pending commit did not arrive in time: end the utterance now. */
  forceCommit(): void {
    const pending = this.#pendingCommit;
    this.#pendingCommit = undefined;
    if (!pending) return;
    pending.captured();
    void this.flushUtterance().then(pending.transcribed);
  }

  #settleCommit(): void {
    this.#pendingCommit?.captured();
    this.#pendingCommit?.transcribed();
    this.#pendingCommit = undefined;
  }

  /** Queued behind the audio already pushed, as `flush()` is. */
  mark(marker: Marker): void {
    if (this.closed || this.input.closed) return;
    // The framework's queue holds frames and its flush sentinel; ours ride along.
    this.input.put(marker as unknown as AudioFrame);
  }

  /** Queued behind the audio already pushed, so the engine sees it in order. */
  flushUtterance(): Promise<void> {
    if (this.closed || this.input.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#flushWaiters.push(resolve);
      this.flush();
    });
  }

  override close(): void {
    super.close();
    this.#release();
  }

  protected async run(): Promise<void> {
    const { provider, language, onAudio, preflight } = this.#owner.options;
    const engine = provider.stream(
      { ...(language ? { language } : {}), ...(preflight ? { preflight } : {}) },
      this.abortSignal,
    );
    // Audio sent to the engine, reported once per utterance (whole milliseconds).
    let sentSamples = 0;
    const reportAudio = () => {
      const ms = Math.round(samplesToMs(sentSamples));
      sentSamples = 0;
      if (ms > 0) onAudio?.(ms);
    };
    const reading = this.#readEvents(engine);
    // A failed engine ends the input loop; the error is rethrown below.
    reading.catch(() => {
      if (!this.input.closed) this.input.close();
    });
    try {
      for await (const item of this.input) {
        if (item === stt.SpeechStream.FLUSH_SENTINEL) {
          this.#gate.close();
          engine.flush();
          reportAudio();
          continue;
        }
        if (item === (SILENCE_STARTED as unknown)) {
          // Only an open utterance has audio to transcribe early.
          if (this.#gate.isOpen) engine.silenceStarted?.();
          continue;
        }
        if (item === (SPEECH_RESUMED as unknown)) {
          engine.speechResumed?.();
          continue;
        }
        const frame = item as { data: Int16Array; channels: number };
        const samples = downmix(frame.data, frame.channels);
        const out = this.#gate.push(samples);
        for (const chunk of out.chunks) {
          sentSamples += chunk.length;
          engine.pushAudio(chunk);
        }
        if (out.ended) {
          const pending = this.#pendingCommit;
          this.#pendingCommit = undefined;
          if (pending) this.#flushWaiters.push(pending.transcribed);
          engine.flush();
          pending?.captured();
          reportAudio();
        }
      }
      engine.end();
      reportAudio();
      await reading;
    } finally {
      this.#release();
    }
  }

  async #readEvents(engine: SttStream): Promise<void> {
    const fallbackLanguage = this.#owner.options.language;
    for await (const event of engine as AsyncIterable<SttEvent>) {
      if (this.queue.closed) break;
      if (event.type === 'flushed') {
        this.#flushWaiters.shift()?.();
      } else if (event.type === 'interim' || event.type === 'preflight') {
        const type =
          event.type === 'interim'
            ? stt.SpeechEventType.INTERIM_TRANSCRIPT
            : stt.SpeechEventType.PREFLIGHT_TRANSCRIPT;
        this.queue.put(
          speechEvent(type, {
            ...event,
            language: event.language ?? fallbackLanguage,
            confidence: event.type === 'preflight' ? event.confidence : undefined,
          }),
        );
      } else {
        this.queue.put(
          speechEvent(stt.SpeechEventType.FINAL_TRANSCRIPT, {
            ...event,
            language: event.language ?? fallbackLanguage,
          }),
        );
      }
    }
  }

  #release(): void {
    this.#onClose();
    for (const resolve of this.#flushWaiters.splice(0)) resolve();
    this.#settleCommit();
  }
}

function speechEvent(
  type: stt.SpeechEventType,
  result: {
    text: string;
    language: string | undefined;
    startMs: number;
    endMs: number;
    confidence: number | undefined;
  },
): stt.SpeechEvent {
  return {
    type,
    alternatives: [
      {
        language: asLanguageCode(result.language ?? 'en'),
        text: result.text.trim(),
        startTime: result.startMs / 1000,
        endTime: result.endMs / 1000,
        confidence: result.confidence ?? 1,
      },
    ],
  };
}

function downmix(data: Int16Array, channels: number): Int16Array {
  if (channels === 1) return data;
  const out = new Int16Array(Math.floor(data.length / channels));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += data[i * channels + c] ?? 0;
    out[i] = Math.round(sum / channels);
  }
  return out;
}
