import { VAD, type VADEvent, VADEventType, type VADStream } from '@livekit/agents';

/** Told when a pause in the user's speech begins, and when speech comes back. */
export interface PauseListener {
  silenceStarted(): void;
  speechResumed(): void;
}

/**
 * Follows a VAD's events (Silero: one per 32 ms window) and says when the user, still
 * speaking by the VAD's account, has been silent for `pauseMs`, and when speech resumes
 * within that utterance. The VAD's end of speech closes the pause without a word: the
 * recognizer's flush takes over from there.
 */
export class PauseTracker {
  #paused = false;

  constructor(
    readonly listener: PauseListener,
    readonly pauseMs: number,
  ) {}

  observe(event: VADEvent): void {
    if (event.type !== VADEventType.INFERENCE_DONE) {
      if (event.type === VADEventType.START_OF_SPEECH || event.type === VADEventType.END_OF_SPEECH)
        this.#paused = false;
      return;
    }
    // The silence count only grows during a pause; speech resets it to zero.
    if (this.#paused && event.rawAccumulatedSilence < this.pauseMs) {
      this.#paused = false;
      this.listener.speechResumed();
    } else if (!this.#paused && event.speaking && event.rawAccumulatedSilence >= this.pauseMs) {
      this.#paused = true;
      this.listener.silenceStarted();
    }
  }
}

/**
 * A VAD that is another VAD (Silero, loaded once per worker process and shared by its
 * sessions) and shows one session every event its streams give that session's
 * `AgentSession`, as the session reads them. The inner VAD's metrics stay on the inner VAD.
 */
export class EventWatchingVad extends VAD {
  label: string;
  readonly #inner: VAD;
  readonly #onEvent: (event: VADEvent) => void;

  constructor(inner: VAD, onEvent: (event: VADEvent) => void) {
    super(inner.capabilities);
    this.label = inner.label;
    this.#inner = inner;
    this.#onEvent = onEvent;
  }

  override get minSilenceDuration(): number | null {
    return this.#inner.minSilenceDuration;
  }

  stream(): VADStream {
    const stream = this.#inner.stream();
    const next = stream.next.bind(stream);
    stream.next = async () => {
      const result = await next();
      if (!result.done) this.#onEvent(result.value);
      return result;
    };
    return stream;
  }
}

/**
 * The VAD a session runs on: `vad` itself when early starts are off (`pauseMs` 0), else
 * `vad` watched by a `PauseTracker` that tells `listener` of the user's pauses.
 */
export function vadWatchingPauses(vad: VAD, pauseMs: number, listener: PauseListener): VAD {
  if (pauseMs <= 0) return vad;
  const pauses = new PauseTracker(listener, pauseMs);
  return new EventWatchingVad(vad, (event) => pauses.observe(event));
}
