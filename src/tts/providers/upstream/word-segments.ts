import { type TextTiming, type TextWord, wordsOf } from '../alignment.ts';

/** One timed word as a vendor reports it: its text (as the vendor normalized it) and times. */
export interface VendorWordSegment {
  readonly text: string;
  readonly startS: number;
  readonly endS: number;
}

/**
 * How many words of the text a vendor segment may skip to find its match: a vendor that
 * reads "42" as "forty two" leaves one word unmatched; a larger window would let a common
 * word ("the", "two") match far ahead and skip words that were spoken.
 */
const LOOKAHEAD_WORDS = 3;

/** A word's letters and digits, lower case: what a vendor's normalized word is compared by. */
function keyOf(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

interface KeyedWord extends TextWord {
  readonly key: string;
}

/**
 * A vendor's word timings, turned into timings of the words of the request's text. Vendors
 * time the text as they normalized it ("can't" for "can’t", "its" for "it's", no
 * punctuation, "forty two" for "42", a CJK run cut into several words), so segments are
 * matched to words by their letters and digits, in order:
 *
 * - a segment whose letters begin the next word (within {@link LOOKAHEAD_WORDS}) starts it;
 *   later segments that continue its letters extend it;
 * - segments that match no word (a number read out) are held, and time the words skipped
 *   before the next match as one range, from the first held segment's start to the last
 *   one's end;
 * - a word the vendor did not time gets no timing (timings are measured, never guessed);
 *   held segments with no skipped word to time (a cue the vendor spoke) are dropped.
 *
 * A word is handed out once a later segment shows it is complete, at {@link endWord}, or
 * at {@link finish}.
 */
export class WordSegmentMapper {
  readonly #words: KeyedWord[];
  /** The next word not yet matched. */
  #next = 0;
  #open: { word: KeyedWord; rest: string; startS: number; endS: number } | undefined;
  #held: VendorWordSegment[] = [];

  constructor(text: string) {
    this.#words = wordsOf(text).map((word) => ({
      ...word,
      key: keyOf(text.slice(word.textStart, word.textEnd)),
    }));
  }

  /** The timings completed by `segments` (in the vendor's order, times on one timeline). */
  push(segments: readonly VendorWordSegment[]): TextTiming[] {
    const done: TextTiming[] = [];
    for (const segment of segments) {
      const key = keyOf(segment.text);
      if (key === '') continue;
      const open = this.#open;
      if (open?.rest.startsWith(key)) {
        open.rest = open.rest.slice(key.length);
        open.endS = Math.max(open.endS, segment.endS);
        continue;
      }
      done.push(...this.#closeOpen());
      done.push(...this.#match(key, segment));
    }
    return done;
  }

  /**
   * The word still open, if any: the vendor said its text ended at a word boundary (its
   * text chunk ended), so no later segment continues it.
   */
  endWord(): TextTiming[] {
    return this.#closeOpen();
  }

  /** The word still open, and words timed by held segments, if any. */
  finish(): TextTiming[] {
    const done = this.#closeOpen();
    const skipped = this.#words.slice(this.#next);
    done.push(...this.#heldOver(skipped));
    this.#next = this.#words.length;
    return done;
  }

  #match(key: string, segment: VendorWordSegment): TextTiming[] {
    const last = Math.min(this.#words.length, this.#next + LOOKAHEAD_WORDS);
    for (let index = this.#next; index < last; index++) {
      const word = this.#words[index]!;
      if (!word.key.startsWith(key)) continue;
      const done = this.#heldOver(this.#words.slice(this.#next, index));
      this.#next = index + 1;
      this.#open = {
        word,
        rest: word.key.slice(key.length),
        startS: segment.startS,
        endS: segment.endS,
      };
      return done;
    }
    this.#held.push(segment);
    return [];
  }

  /** One timing over `skipped` from the held segments (none when either is empty). */
  #heldOver(skipped: readonly KeyedWord[]): TextTiming[] {
    const held = this.#held;
    this.#held = [];
    const first = skipped[0];
    const lastWord = skipped.at(-1);
    if (held.length === 0 || first === undefined || lastWord === undefined) return [];
    const startS = held[0]!.startS;
    const endS = Math.max(startS, ...held.map((segment) => segment.endS));
    return [{ textStart: first.textStart, textEnd: lastWord.textEnd, startS, endS }];
  }

  #closeOpen(): TextTiming[] {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return [];
    const { textStart, textEnd } = open.word;
    return [{ textStart, textEnd, startS: open.startS, endS: Math.max(open.endS, open.startS) }];
  }
}
