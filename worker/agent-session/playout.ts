/**
 * Our own account of what the agent actually said: the text and audio length of every
 * synthesized sentence, in the order they are played, and, when the voice aligns its audio
 * (`word_alignment`), where each word starts in it. When LiveKit reports how far an
 * interrupted reply played (its audio output's playback position), the spoken text is the
 * sentences fully played plus, of the current one, exactly the words whose start was
 * played (`heardWords`); a sentence without timings falls back to its played share of
 * characters cut back to whole words (`wholeWords`).
 *
 * LiveKit's own synchronized transcript is not used for this: with sentence-by-sentence
 * synthesis it came back empty for interrupted replies, and the turn was lost.
 */
export class PlayoutLedger {
  /** Sentences in play order (their synthesis order), each with the audio received so far. */
  #sentences: PlayedSentence[] = [];

  constructor(readonly sampleRateHz: number) {}

  /**
   * The sentences not played yet, in play order, with the audio and word timings received
   * so far: what the captions of the playing reply are paced by (captions.ts).
   */
  pending(): readonly LedgerSentence[] {
    return this.#sentences;
  }

  /**
   * `samples` more audio of the sentence `text` arrived; `order` is its place in synthesis
   * order, which is play order. Sentences are synthesized concurrently (the framework starts
   * the next before the current one is played), so audio of a later sentence can arrive
   * while an earlier one is still coming in: each piece is added to its own sentence.
   */
  addAudio(order: number, text: string, samples: number): void {
    this.#sentence(order, text).samples += samples;
  }

  /**
   * The sentence `text` (place `order`) times these words of its audio: ranges of `text`
   * and their starts in ms from the sentence's first sample, in speaking order.
   */
  addWords(order: number, text: string, words: readonly SpokenWord[]): void {
    this.#sentence(order, text).words.push(...words);
  }

  /**
   * A playout (one reply, or one segment of it) ended after `playbackPositionS` seconds of
   * its audio. Returns the text spoken up to there. Sentences it played are forgotten; when
   * it was interrupted, so is everything synthesized after (it is never played).
   */
  finish(playbackPositionS: number, interrupted: boolean): string {
    let position = Math.max(0, playbackPositionS) * this.sampleRateHz;
    // Rounding of the reported position: a sentence within 50 ms of its end counts as played.
    const slack = this.sampleRateHz / 20;
    const spoken: string[] = [];
    while (this.#sentences.length > 0 && position + slack > 0) {
      const sentence = this.#sentences[0] as PlayedSentence;
      // Timings can come before a sentence's first frame: none of it was played yet.
      if (sentence.samples === 0) break;
      if (position + slack < sentence.samples) {
        if (interrupted) {
          const part = this.#playedPart(sentence, position, slack);
          if (part) spoken.push(part);
        }
        break;
      }
      spoken.push(sentence.text);
      position -= sentence.samples;
      this.#sentences.shift();
    }
    if (interrupted) this.#sentences = [];
    return spoken.join(' ').trim();
  }

  /**
   * What of `sentence` its first `samples` of audio said: exactly, by its word timings, or
   * guessed from its share of characters (with the position's rounding slack).
   */
  #playedPart(sentence: PlayedSentence, samples: number, slack: number): string {
    if (sentence.words.length > 0) {
      return heardWords(sentence.text, sentence.words, (samples / this.sampleRateHz) * 1000);
    }
    return wholeWords(sentence.text, (samples + slack) / sentence.samples);
  }

  #sentence(order: number, text: string): PlayedSentence {
    let at = this.#sentences.length;
    while (at > 0 && (this.#sentences[at - 1] as PlayedSentence).order > order) at--;
    const before = this.#sentences[at - 1];
    if (before?.order === order) return before;
    const sentence = { order, text: text.trim(), samples: 0, words: [] };
    this.#sentences.splice(at, 0, sentence);
    return sentence;
  }
}

/** One timed word of a sentence: its range in the sentence's text and its start. */
export interface SpokenWord {
  readonly textStart: number;
  readonly textEnd: number;
  /** Start in ms from the sentence's first sample. */
  readonly startMs: number;
}

/** A sentence as the ledger holds it: its text, the samples and word timings received. */
export interface LedgerSentence {
  readonly order: number;
  readonly text: string;
  readonly samples: number;
  readonly words: readonly SpokenWord[];
}

interface PlayedSentence {
  order: number;
  text: string;
  samples: number;
  words: SpokenWord[];
}

/**
 * The words of `text` whose start lies before `playedMs`: the text up to the last of them,
 * with the punctuation attached to it (up to the next space).
 */
export function heardWords(text: string, words: readonly SpokenWord[], playedMs: number): string {
  let last: SpokenWord | undefined;
  for (const word of words) {
    if (word.startMs >= playedMs) break;
    last = word;
  }
  if (!last) return '';
  return text.slice(0, wordEnd(text, last)).trim();
}

/** Where `word` ends in `text` with the punctuation attached to it (up to the next space). */
export function wordEnd(text: string, word: SpokenWord): number {
  const space = text.slice(word.textEnd).search(/\s/);
  return space < 0 ? text.length : word.textEnd + space;
}

/**
 * The words of `text` entirely within its first `fraction` of characters: the guess for a
 * voice that does not time its words.
 */
export function wholeWords(text: string, fraction: number): string {
  const chars = Math.floor(text.length * Math.min(1, Math.max(0, fraction)));
  if (chars >= text.length) return text;
  // A word counts once its last character is played.
  const cut = text.slice(0, chars + 1);
  const end = /\s/.test(cut.at(-1) ?? '') ? cut.length : cut.search(/\s+\S*$/);
  return end <= 0 ? '' : text.slice(0, end).trim();
}
