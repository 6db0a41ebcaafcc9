// The agent worker's VAD: LiveKit's `VAD` interface (@livekit/agents) over the same Silero
// detector realtime transcription uses (`VoiceActivity` for the model, `SpeechDetector` for
// the turn rules), with the events and bookkeeping of LiveKit's own Silero plugin.
import { VAD, type VADEvent, VADEventType, VADStream } from '@livekit/agents';
import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import type { Logger } from '../../observability/logger.ts';
import { InputAudio } from './input-audio.ts';
import { VAD_WINDOW_SAMPLES } from './protocol.ts';
import { SpeechDetector } from './speech-detector.ts';
import { type VadStream, VoiceActivity } from './voice-activity.ts';

const MODEL_RATE_HZ = 16_000;
const WINDOW_MS = (VAD_WINDOW_SAMPLES * 1000) / MODEL_RATE_HZ;

/** How speech is told from silence; the defaults are `SpeechDetector`'s and the plugin's. */
export interface SileroVadOptions {
  /** Probability above which a window counts as speech. Default 0.5. */
  threshold?: number;
  /** Speech needed before the start of speech. Default 50 ms. */
  minSpeechMs?: number;
  /** Silence that ends the user's speech (and so a turn). Default 450 ms. */
  minSilenceMs?: number;
  /** Audio before the start of speech kept in the speech events' frames. Default 500 ms. */
  leadInMs?: number;
  /** Longest speech kept in the speech events' frames. Default 60 s. */
  maxSpeechMs?: number;
}

type Settings = Required<SileroVadOptions>;

/**
 * Silero voice activity as a LiveKit VAD: one model thread per process, shared by every
 * stream (each keeps its own model state). Load it once per job process, in `prewarm`.
 *
 * @example
 * ```ts
 * proc.userData.vad = await SileroVad.load(logger, { minSilenceMs: 450 });
 * ```
 */
export class SileroVad extends VAD {
  label = 'awp.SileroVAD';
  readonly #activity: VoiceActivity;
  readonly #settings: Settings;
  readonly #logger: Logger;

  constructor(activity: VoiceActivity, logger: Logger, options: SileroVadOptions = {}) {
    super({ updateInterval: WINDOW_MS });
    this.#activity = activity;
    this.#logger = logger;
    this.#settings = {
      threshold: options.threshold ?? 0.5,
      minSpeechMs: options.minSpeechMs ?? 50,
      minSilenceMs: options.minSilenceMs ?? 450,
      leadInMs: options.leadInMs ?? 500,
      maxSpeechMs: options.maxSpeechMs ?? 60_000,
    };
  }

  /** Starts the model thread and waits until the model is loaded. */
  static async load(logger: Logger, options: SileroVadOptions = {}): Promise<SileroVad> {
    const activity = new VoiceActivity(logger);
    await activity.warmUp();
    return new SileroVad(activity, logger, options);
  }

  override get minSilenceDuration(): number {
    return this.#settings.minSilenceMs;
  }

  stream(): VADStream {
    return new SileroVadStream(this, this.#activity, this.#settings, this.#logger);
  }
}

/** One segment of a stream: from its start or a `flush()` to the next. */
interface Segment {
  vad: VadStream;
  detector: SpeechDetector;
  /** Set by the segment's first frame. */
  input?: InputAudio;
  resampler?: AudioResampler | undefined;
  samplesIndex: number;
  timestampMs: number;
  speechMs: number;
  silenceMs: number;
}

class SileroVadStream extends VADStream {
  readonly #activity: VoiceActivity;
  readonly #settings: Settings;
  readonly #log: Logger;
  #segment: Segment | undefined;

  constructor(vad: SileroVad, activity: VoiceActivity, settings: Settings, logger: Logger) {
    super(vad);
    this.#activity = activity;
    this.#settings = settings;
    this.#log = logger;
    this.#run().catch((error: unknown) => {
      this.#log.error({ err: error }, 'voice activity stream failed');
      if (!this.closed) this.close();
    });
  }

  override close(): void {
    // Closed already (a failed model closes the stream before its session does).
    if (this.closed) return;
    super.close();
    this.#endSegment();
  }

  async #run(): Promise<void> {
    await this.#startSegment();
    while (!this.closed) {
      const { done, value } = await this.inputReader.read();
      if (done) break;
      if (typeof value === 'symbol') {
        // A flush is a hard boundary: what came before it is reported, then all starts anew.
        await this.#segment?.vad.drained();
        this.#endSegment();
        await this.#startSegment();
        continue;
      }
      this.#push(value);
    }
    await this.#segment?.vad.drained();
    this.#endSegment();
  }

  async #startSegment(): Promise<void> {
    let segment: Segment | undefined;
    const vad = await this.#activity.open({
      window: (_samples, probability, waitedMs) => {
        if (segment && segment === this.#segment) this.#window(segment, probability, waitedMs);
      },
      failed: (error) => {
        this.#log.error({ err: error }, 'voice activity model failed');
        if (!this.closed) this.close();
      },
    });
    segment = {
      vad,
      detector: new SpeechDetector({
        windowMs: WINDOW_MS,
        threshold: this.#settings.threshold,
        minSpeechMs: this.#settings.minSpeechMs,
        minSilenceMs: this.#settings.minSilenceMs,
      }),
      samplesIndex: 0,
      timestampMs: 0,
      speechMs: 0,
      silenceMs: 0,
    };
    if (this.closed) vad.close();
    else this.#segment = segment;
  }

  #endSegment(): void {
    const segment = this.#segment;
    this.#segment = undefined;
    segment?.vad.close();
    segment?.resampler?.close();
  }

  /** One input frame (mono): kept at its rate, and sent to the model at 16 kHz. */
  #push(frame: AudioFrame): void {
    const segment = this.#segment;
    if (!segment) return;
    if (!segment.input) {
      const { leadInMs, maxSpeechMs } = this.#settings;
      segment.input = new InputAudio(frame.sampleRate, leadInMs, maxSpeechMs);
      if (frame.sampleRate !== MODEL_RATE_HZ) {
        segment.resampler = new AudioResampler(
          frame.sampleRate,
          MODEL_RATE_HZ,
          1,
          AudioResamplerQuality.QUICK,
        );
      }
    } else if (frame.sampleRate !== segment.input.rate) {
      this.#log.error('a frame with a different sample rate was already published');
      return;
    }
    segment.input.push(frame.data);
    const frames = segment.resampler ? segment.resampler.push(frame) : [frame];
    for (const resampled of frames) segment.vad.push(resampled.data);
  }

  /** One window's probability: an inference event, then a start or end of speech if any. */
  #window(segment: Segment, probability: number, waitedMs: number): void {
    const { detector } = segment;
    const input = segment.input as InputAudio;
    const wasSpeaking = detector.speaking;
    const rawSpeechMs = detector.speechMs;
    const rawSilenceMs = detector.silenceMs;
    const change = detector.push(probability);
    const windowAudio = input.takeWindow();
    segment.samplesIndex += VAD_WINDOW_SAMPLES;
    segment.timestampMs += WINDOW_MS;
    if (wasSpeaking) segment.speechMs += WINDOW_MS;
    else segment.silenceMs += WINDOW_MS;
    const event = (type: VADEventType, frames: Int16Array, speaking: boolean): VADEvent => ({
      type,
      samplesIndex: segment.samplesIndex,
      timestamp: segment.timestampMs,
      speechDuration: segment.speechMs,
      silenceDuration: segment.silenceMs,
      frames: [new AudioFrame(frames, input.rate, 1, frames.length)],
      probability: detector.probability,
      inferenceDuration: Math.round(waitedMs),
      speaking,
      rawAccumulatedSilence: type === VADEventType.INFERENCE_DONE ? rawSilenceMs : 0,
      rawAccumulatedSpeech: type === VADEventType.INFERENCE_DONE ? rawSpeechMs : 0,
    });
    this.sendVADEvent(event(VADEventType.INFERENCE_DONE, windowAudio, wasSpeaking));
    if (change === 'start') {
      segment.speechMs = detector.speechMs;
      segment.silenceMs = 0;
      this.sendVADEvent(event(VADEventType.START_OF_SPEECH, input.speech(), true));
    } else if (change === 'end') {
      segment.speechMs = 0;
      segment.silenceMs = detector.silenceMs;
      this.sendVADEvent(event(VADEventType.END_OF_SPEECH, input.speech(), false));
      input.keepLeadIn();
    } else if (!wasSpeaking && detector.silenceMs > 0) {
      // Silence before speech: only the lead-in is kept for the next start.
      input.keepLeadIn();
    }
  }
}
