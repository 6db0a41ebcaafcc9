import { randomUUID } from 'node:crypto';
import {
  ATTR_SEGMENT_ID,
  ATTR_TRANSCRIBED_TRACK_ID,
  ATTR_TRANSCRIPTION_FINAL,
  TOPIC_TRANSCRIPTION,
} from '@awp/protocol';
import { voice } from '@livekit/agents';
import { type AudioFrame, type Room, TrackKind } from '@livekit/rtc-node';
import type { Logger } from '../../src/worker-boundary/index.ts';
import { type PlayoutLedger, type SpokenWord, wordEnd } from './playout.ts';

/**
 * How much later than a caption the audio reaches the user at the least: the audio waits
 * for its 20 ms Opus packet and then in the receiver's jitter buffer, the caption crosses a
 * data channel without either. Measured end to end with a local livekit-server
 * (test/integration/worker/captions.test.ts): words ran 50 to 55 ms ahead of their audio
 * without it.
 */
const AUDIO_TRANSPORT_MS = 50;

/**
 * The Agent's live captions (`lk.transcription`), published by the worker from its playout
 * ledger: each word is added when its audio starts playing out of the worker, by the word
 * timings of the sentence and the time the sentence's frames play (measured here, at the
 * audio output); an interrupted reply's caption ends with exactly the heard text.
 *
 * LiveKit's own agent captions are switched off (`setTranscriptionEnabled(false)`): its
 * synchronizer uses timings as a speaking rate, so its words ran up to a second ahead of
 * their audio. The user's captions stay LiveKit's.
 */
export class AgentCaptions {
  #segment: CaptionSegment | undefined;
  /** When the audio handed to the room so far ends playing (`performance.now()` clock). */
  #playedUntilMs = 0;

  constructor(
    private readonly room: Room,
    private readonly ledger: PlayoutLedger,
    /** Whether the reply playing now is text only (no audio to pace its caption by). */
    private readonly textOnly: () => boolean,
    private readonly log: Logger,
  ) {}

  /**
   * Puts the captions between the session and the room: call right after the session
   * started (its room output exists) and before anything listens to its audio output.
   */
  install(session: voice.AgentSession): void {
    const audio = session.output.audio;
    if (audio) {
      session.output.audio = new PlayoutClock(
        audio,
        (frame, atMs, first) => this.#played(frame, atMs, first),
        () => this.#cleared(),
      );
    }
    session.output.setTranscriptionEnabled(false);
    // A text-only answer has no audio: its caption is its whole text, once complete.
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type !== 'message' || item.role !== 'assistant' || !this.textOnly()) return;
      const text = (item.textContent ?? '').trim();
      if (text !== '') this.#stream().end(text);
    });
  }

  /**
   * The playout of one reply (or segment of it) ended; `spoken` is what the ledger says it
   * said. The caption ends with that text, marked final.
   */
  finished(spoken: string, interrupted: boolean): void {
    const segment = this.#segment;
    this.#segment = undefined;
    if (!segment) return;
    clearTimeout(segment.timer);
    if (!interrupted) for (const word of segment.due) this.#publish(segment, word);
    segment.due = [];
    segment.stream.end(spoken);
  }

  /**
   * `frame` was handed to the room's audio source at `atMs` (`first`: as the first of a
   * playout): it plays once the audio before it has (the source plays in real time), and
   * the words starting in it are due then.
   */
  #played(frame: AudioFrame, atMs: number, first: boolean): void {
    // Frames of a dropped playout still in flight, and those after its end, never play.
    if (this.#segment ? this.#segment.cleared : !first) return;
    const frameMs = (frame.samplesPerChannel / frame.sampleRate) * 1000;
    const playAt = Math.max(atMs, this.#playedUntilMs);
    this.#playedUntilMs = playAt + frameMs;
    this.#segment ??= new CaptionSegment(this.#stream());
    const segment = this.#segment;
    const frameStartMs = segment.capturedMs;
    segment.capturedMs += frameMs;
    let sentenceStartMs = 0;
    for (const sentence of this.ledger.pending()) {
      if (sentenceStartMs >= segment.capturedMs) break;
      // A voice that does not time its words: the sentence shows whole as it starts.
      const words: readonly SpokenWord[] =
        sentence.words.length > 0
          ? sentence.words
          : [{ textStart: 0, textEnd: sentence.text.length, startMs: 0 }];
      let next = segment.scheduled.get(sentence.order) ?? 0;
      for (; next < words.length; next++) {
        const word = words[next] as SpokenWord;
        const startMs = sentenceStartMs + word.startMs;
        if (startMs >= segment.capturedMs) break;
        segment.due.push({
          atMs: playAt + Math.max(0, startMs - frameStartMs) + AUDIO_TRANSPORT_MS,
          order: sentence.order,
          text: sentence.text,
          end: wordEnd(sentence.text, word),
        });
      }
      segment.scheduled.set(sentence.order, next);
      sentenceStartMs += (sentence.samples / this.ledger.sampleRateHz) * 1000;
    }
    this.#arm(segment);
  }

  /** The reply's queued audio was dropped (interruption): nothing more of it will play. */
  #cleared(): void {
    this.#playedUntilMs = 0;
    const segment = this.#segment;
    if (!segment) return;
    segment.cleared = true;
    clearTimeout(segment.timer);
    segment.due = [];
  }

  /** Publishes the words due by now and waits for the next one. */
  #arm(segment: CaptionSegment): void {
    clearTimeout(segment.timer);
    const now = performance.now();
    while (segment.due.length > 0 && (segment.due[0] as DueWord).atMs <= now) {
      this.#publish(segment, segment.due.shift() as DueWord);
    }
    const next = segment.due[0];
    if (next) segment.timer = setTimeout(() => this.#arm(segment), next.atMs - now);
  }

  /** Adds `word` (and anything of its sentence before it not shown yet) to the caption. */
  #publish(segment: CaptionSegment, word: DueWord): void {
    const shown = segment.shown.get(word.order);
    if (shown !== undefined && shown >= word.end) return;
    const separator = shown === undefined && segment.stream.text !== '' ? ' ' : '';
    segment.shown.set(word.order, word.end);
    segment.stream.append(separator + word.text.slice(shown ?? 0, word.end));
  }

  #stream(): CaptionStream {
    return new CaptionStream(this.room, this.log);
  }
}

/** A word due on the caption: when its audio starts, and its sentence's text up to it. */
interface DueWord {
  atMs: number;
  /** The sentence's place in play order. */
  order: number;
  text: string;
  /** Where the word (with its attached punctuation) ends in `text`. */
  end: number;
}

/** The caption of one playout: its audio so far and the words scheduled and shown. */
class CaptionSegment {
  /** Audio of the playout handed to the room so far, in ms. */
  capturedMs = 0;
  /** Words scheduled so far, by sentence order. */
  readonly scheduled = new Map<number, number>();
  /** How much of each sentence's text the caption shows, by sentence order. */
  readonly shown = new Map<number, number>();
  due: DueWord[] = [];
  timer: NodeJS.Timeout | undefined;
  /** Its queued audio was dropped: frames still arriving for it never play. */
  cleared = false;

  constructor(readonly stream: CaptionStream) {}
}

/**
 * One caption segment on `lk.transcription`, in LiveKit Agents' format: a delta stream
 * (`lk.transcription_final` false) that receives each word as it is due, then, when the
 * playout ends, a stream of the same `lk.segment_id` marked final with the whole text, which
 * replaces it (on interruption it can be shorter: a word sent just before the cut that the
 * playback position counts as unheard is taken back).
 */
class CaptionStream {
  readonly id = `SG_${randomUUID()}`;
  /** The text sent on the delta stream so far. */
  text = '';
  #writes: Promise<void> = Promise.resolve();
  #writer: Promise<{ write(text: string): Promise<void>; close(): Promise<void> }> | undefined;

  constructor(
    private readonly room: Room,
    private readonly log: Logger,
  ) {}

  append(chunk: string): void {
    this.text += chunk;
    this.#queue(async () => {
      this.#writer ??= this.#open(false);
      await (await this.#writer).write(chunk);
    });
  }

  end(text: string): void {
    if (text === '' && this.text === '') return;
    this.#queue(async () => {
      if (this.#writer) await (await this.#writer).close();
      const final = await this.#open(true);
      await final.write(text);
      await final.close();
    });
  }

  #queue(step: () => Promise<void>): void {
    this.#writes = this.#writes.then(step).catch((error) => {
      // The user may have left; the transcript turn carries the text either way.
      this.log.debug({ err: error }, 'caption not published');
    });
  }

  #open(final: boolean) {
    const local = this.room.localParticipant;
    if (!local) throw new Error('not connected to the room');
    const track = [...local.trackPublications.values()].find(
      (p) => p.kind === TrackKind.KIND_AUDIO,
    );
    return local.streamText({
      topic: TOPIC_TRANSCRIPTION,
      attributes: {
        [ATTR_SEGMENT_ID]: this.id,
        [ATTR_TRANSCRIPTION_FINAL]: String(final),
        ...(track?.sid ? { [ATTR_TRANSCRIBED_TRACK_ID]: track.sid } : {}),
      },
    });
  }
}

/**
 * The session's audio output with a clock: passes every frame on to the room's output and
 * reports when the room's audio source took it, and when its queue was dropped.
 */
class PlayoutClock extends voice.AudioOutput {
  constructor(
    private readonly next: voice.AudioOutput,
    private readonly handed: (frame: AudioFrame, atMs: number, first: boolean) => void,
    private readonly dropped: () => void,
  ) {
    super(next.sampleRate, next, { pause: true });
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    const segments = this.next.capturedPlayoutSegments;
    await this.next.captureFrame(frame);
    const atMs = performance.now();
    this.handed(frame, atMs, this.next.capturedPlayoutSegments > segments);
  }

  /**
   * A segment the room's output dropped (interrupted before its first frame) never finishes
   * there: it is finished here, as interrupted, as LiveKit's own chained outputs do.
   */
  override async waitForPlayout(): Promise<voice.PlaybackFinishedEvent> {
    const drift = this.pendingPlayoutSegments - this.next.pendingPlayoutSegments;
    for (let i = 0; i < drift; i++) {
      this.onPlaybackFinished({ playbackPosition: 0, interrupted: true });
    }
    return super.waitForPlayout();
  }

  override flush(): void {
    super.flush();
    this.next.flush();
  }

  clearBuffer(): void {
    this.dropped();
    this.next.clearBuffer();
  }
}
