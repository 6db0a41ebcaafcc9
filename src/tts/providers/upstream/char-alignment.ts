import {
  type AlignmentGranularity,
  type TextTiming,
  type TextWord,
  wordsOf,
} from '../alignment.ts';

/**
 * A vendor's character alignment, turned into the timings a request asks for: each
 * character that is not a space (`char`), or each word of the text, from its first
 * character's start to its last character's end (`word`). Characters come in the vendor's
 * order with their offsets in the request's text; a word is handed out once a character
 * after it arrives, or at {@link finish}.
 */
export class CharTimingMapper {
  readonly #granularity: AlignmentGranularity;
  readonly #text: string;
  readonly #words: TextWord[];
  #word = 0;
  #open: { word: TextWord; startS: number; endS: number } | undefined;

  constructor(text: string, granularity: AlignmentGranularity) {
    this.#granularity = granularity;
    this.#text = text;
    this.#words = granularity === 'word' ? wordsOf(text) : [];
  }

  /** The timings completed by `chars`. */
  push(chars: readonly TextTiming[]): TextTiming[] {
    const done: TextTiming[] = [];
    for (const char of chars) {
      if (this.#granularity === 'char') {
        if (!/^\s*$/u.test(this.#textOf(char))) done.push(char);
        continue;
      }
      const word = this.#wordHolding(char.textStart);
      if (this.#open !== undefined && this.#open.word !== word) done.push(...this.finish());
      if (word === undefined) continue;
      if (this.#open === undefined) this.#open = { word, startS: char.startS, endS: char.endS };
      else this.#open.endS = Math.max(this.#open.endS, char.endS);
    }
    return done;
  }

  /** The word still open, if any. */
  finish(): TextTiming[] {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return [];
    const { textStart, textEnd } = open.word;
    return [{ textStart, textEnd, startS: open.startS, endS: Math.max(open.endS, open.startS) }];
  }

  #textOf(char: TextTiming): string {
    return this.#text.slice(char.textStart, char.textEnd);
  }

  /** The word containing the UTF-16 offset `at` (words come in order, as characters do). */
  #wordHolding(at: number): TextWord | undefined {
    while (this.#word < this.#words.length && this.#words[this.#word]!.textEnd <= at) {
      this.#word += 1;
    }
    const word = this.#words[this.#word];
    return word !== undefined && at >= word.textStart ? word : undefined;
  }
}
