import { voice } from '@livekit/agents';
import { type AudioFrame, AudioSource, type Room } from '@livekit/rtc-node';
import type { Logger } from '../../src/worker-boundary/index.ts';
import { CaptionStream } from './caption-stream.ts';
import { type PlayoutLedger, type SpokenWord, wordEnd } from './playout.ts';

/**
 * How long after a word's audio leaves the worker its caption is sent. The caption crosses a
 * data channel; the audio waits for its 20 ms Opus packet and then in the receiver's jitter
 * buffer, which grows when packets arrive unevenly (a busy machine) and which the worker
 * cannot see. Measured with a local livekit-server on the 2-core test machine
 * (test/integration/worker/captions.test.ts, docs/decisions/agents.md "Agent captions
 * paced by playback"): the audio path is about 50 ms slower when idle and up to about 250 ms
 * slower under load, so 100 ms keeps captions from running far ahead of the audio without
 * making them late when the machine is idle.
 */
export const CAPTION_DELAY_MS = 100;

/**
 * The Agent's live captions (`lk.transcription`, the client library's `transcriptProgress`),
 * published by the worker from its playout ledger: each word is sent when its audio leaves
 * the room's audio source (plus `CAPTION_DELAY_MS`), by the sentence's word timings and the
 * source's queue; an interrupted reply's caption ends with exactly the heard text, and no
 * word after the cut is sent.
 *
 * LiveKit's own agent captions are switched off (`syncTranscription: false` and
 * `setTranscriptionEnabled(false)`): its synchronizer uses timings as a speaking rate, so
 * its words ran up to a second ahead of their audio. The user's captions stay LiveKit's.
 */
export class AgentCaptions {
  #segment: CaptionSegment | undefined;

  constructor(
    private readonly room: Room,
    private readonly ledger: PlayoutLedger,
    private readonly voice: {
      /** Whether the reply playing now is text only (no audio to pace its caption by). */
      textOnly: () => boolean;
      /** Whether the voice times its words (undefined: not known yet). */
      aligns: () => boolean | undefined;
    },
    private readonly log: Logger,
  ) {}

  /**
   * Puts the captions between the session and the room: call right after the session
   * started (its room output exists) and before anything listens to its audio output.
   */
  install(voiceSession: voice.AgentSession): void {
    const audio = voiceSession.output.audio;
    if (audio) {
      const queued = sourceQueueOf(audio);
      if (!queued) this.log.warn('room audio source not found: captions paced by frames');
      voiceSession.output.audio = new PlayoutClock(audio, {
        handed: (frame, first) => this.#handed(frame, first, queued),
        cleared: () => this.#segment?.stop(),
      });
    }
    voiceSession.output.setTranscriptionEnabled(false);
    // A text-only answer has no audio: its caption is its whole text, once complete.
    voiceSession.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type !== 'message' || item.role !== 'assistant' || !this.voice.textOnly()) return;
      const text = (item.textContent ?? '').trim();
      if (text !== '') new CaptionStream(this.room, this.log).end(text);
    });
  }

  /**
   * The playout of one reply (or segment of it) ended; `spoken` is what the ledger says was
   * heard. The caption ends with that text, marked final.
   */
  finished(spoken: string): void {
    const segment = this.#segment;
    this.#segment = undefined;
    if (!segment) return;
    segment.stop();
    segment.stream.end(spoken);
  }

  /**
   * `frame` was taken by the room's audio source (`first`: as the first frame of a
   * playout). It starts leaving the worker once the audio queued before it has:
   * `queued()` after it was taken, less its own length.
   */
  #handed(frame: AudioFrame, first: boolean, queued: (() => number) | undefined): void {
    const now = performance.now();
    const frameMs = (frame.samplesPerChannel / frame.sampleRate) * 1000;
    if (first && !this.#segment) {
      const stream = new CaptionStream(this.room, this.log);
      stream.open();
      this.#segment = new CaptionSegment(stream);
    }
    const segment = this.#segment;
    // Frames of a dropped playout still in flight never play.
    if (!segment || segment.stopped) return;
    const startsAt = queued
      ? now + queued() - frameMs
      : Math.max(now, segment.anchorAtMs + segment.capturedMs - segment.anchorOffsetMs);
    segment.anchorAtMs = startsAt;
    segment.anchorOffsetMs = segment.capturedMs;
    segment.capturedMs += frameMs;
    this.#schedule(segment);
  }

  /**
   * Schedules every word whose start is now in the source: due when its audio leaves,
   * counted from the frame just taken (the source plays in real time). A word whose timing
   * came after its frame is scheduled by the next frame, never earlier than its audio.
   */
  #schedule(segment: CaptionSegment): void {
    let sentenceStartMs = 0;
    for (const sentence of this.ledger.pending()) {
      if (sentenceStartMs >= segment.capturedMs) break;
      segment.texts.set(sentence.order, sentence.text);
      const sentenceMs = (sentence.samples / this.ledger.sampleRateHz) * 1000;
      const words = this.#timedWords(sentence, sentenceStartMs + sentenceMs <= segment.capturedMs);
      let next = segment.scheduled.get(sentence.order) ?? 0;
      for (; next < words.length; next++) {
        const word = words[next] as SpokenWord;
        const offsetMs = sentenceStartMs + word.startMs;
        if (offsetMs >= segment.capturedMs) break;
        segment.due({
          atMs: segment.anchorAtMs + (offsetMs - segment.anchorOffsetMs) + CAPTION_DELAY_MS,
          order: sentence.order,
          end: wordEnd(sentence.text, word),
        });
      }
      segment.scheduled.set(sentence.order, next);
      sentenceStartMs += sentenceMs;
    }
  }

  /**
   * The words of `sentence` to caption: its timings; for a voice that does not time its
   * words, or a sentence fully in the source without any timing, the whole sentence at its
   * start.
   */
  #timedWords(
    sentence: { text: string; words: readonly SpokenWord[] },
    complete: boolean,
  ): readonly SpokenWord[] {
    if (sentence.words.length > 0) return sentence.words;
    if (this.voice.aligns() === false || complete) {
      return [{ textStart: 0, textEnd: sentence.text.length, startMs: 0 }];
    }
    return [];
  }
}

/** A word due on the caption: when, its sentence, and where it ends in the sentence. */
interface DueWord {
  atMs: number;
  /** The sentence's place in play order. */
  order: number;
  /** Where the word (with its attached punctuation) ends in its sentence's text. */
  end: number;
}

/** The caption of one playout: its audio in the source so far and the words scheduled. */
class CaptionSegment {
  /** Audio of the playout taken by the source so far, in ms. */
  capturedMs = 0;
  /** The last frame taken: where it starts in the playout and when it leaves the worker. */
  anchorOffsetMs = 0;
  anchorAtMs = 0;
  /** Words scheduled so far, by sentence order. */
  readonly scheduled = new Map<number, number>();
  /** Each sentence's text, by order. */
  readonly texts = new Map<number, string>();
  /** Its audio was dropped (interruption) or it ended: nothing more is sent on its deltas. */
  stopped = false;
  #due: DueWord[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** How far the caption goes: the sentence and the end of its last word sent. */
  #shown: { order: number; end: number } | undefined;

  constructor(readonly stream: CaptionStream) {}

  due(word: DueWord): void {
    let at = this.#due.length;
    while (at > 0 && (this.#due[at - 1] as DueWord).atMs > word.atMs) at--;
    this.#due.splice(at, 0, word);
    this.#arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.#timer);
    this.#due = [];
  }

  /** Sends the words due by now and waits for the next one. */
  #arm(): void {
    clearTimeout(this.#timer);
    if (this.stopped) return;
    const now = performance.now();
    while (this.#due.length > 0 && (this.#due[0] as DueWord).atMs <= now) {
      this.#send(this.#due.shift() as DueWord);
    }
    const next = this.#due[0];
    if (next) this.#timer = setTimeout(() => this.#arm(), Math.max(1, next.atMs - now));
  }

  /** Adds the caption's text up to the end of `word`, if it does not show it yet. */
  #send(word: DueWord): void {
    const shown = this.#shown;
    if (
      shown &&
      (word.order < shown.order || (word.order === shown.order && word.end <= shown.end))
    )
      return;
    let chunk = '';
    if (shown && shown.order === word.order) {
      chunk = (this.texts.get(word.order) ?? '').slice(shown.end, word.end);
    } else {
      // The rest of the sentence shown so far, any sentence between, then this one's start.
      if (shown) chunk += (this.texts.get(shown.order) ?? '').slice(shown.end);
      for (const [order, text] of this.texts) {
        if (order > (shown?.order ?? -1) && order < word.order) chunk += ` ${text}`;
      }
      const text = (this.texts.get(word.order) ?? '').slice(0, word.end);
      chunk += this.stream.text !== '' || chunk !== '' ? ` ${text}` : text;
      chunk = chunk.replace(/\s+/g, ' ');
    }
    this.#shown = { order: word.order, end: word.end };
    if (chunk !== '') this.stream.append(chunk);
  }
}

/**
 * The room audio source's queued audio (ms): of LiveKit's room output, `output` or the
 * output it passes frames to (the recorder wraps it when the session is recorded).
 */
function sourceQueueOf(output: voice.AudioOutput): (() => number) | undefined {
  // ParticipantAudioOutput keeps its source private; its queue is what says when a frame
  // taken now leaves the worker (the source sends 10 ms at a time, in real time).
  for (let at: unknown = output; at instanceof voice.AudioOutput; ) {
    const source: unknown = Reflect.get(at, 'audioSource');
    if (source instanceof AudioSource) return () => source.queuedDuration;
    at = Reflect.get(at, 'nextInChain');
  }
  return undefined;
}

/**
 * The session's audio output with a clock: passes every frame on to the room's output and
 * reports each once the room's audio source took it, and when its queue was dropped.
 */
class PlayoutClock extends voice.AudioOutput {
  constructor(
    private readonly next: voice.AudioOutput,
    private readonly report: {
      handed: (frame: AudioFrame, first: boolean) => void;
      cleared: () => void;
    },
  ) {
    super(next.sampleRate, next, { pause: true });
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    const segments = this.next.capturedPlayoutSegments;
    await this.next.captureFrame(frame);
    this.report.handed(frame, this.next.capturedPlayoutSegments > segments);
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
    this.report.cleared();
    this.next.clearBuffer();
  }
}
