import { codePointOffsets, type TextTiming, type TextWord, wordsOf } from '../alignment.ts';
import type { EngineMark } from './helper/engine-helper.ts';

/**
 * Turns espeak-ng's marks for one utterance into word timings. espeak-ng reports a word
 * where it starts; a number or abbreviation can give several marks (one per spoken word,
 * their positions not always inside it), so each mark is counted for the word of the text
 * that holds its position, and a word starts at its first mark. A word ends where the next
 * word or boundary (clause, sentence, end of utterance) starts: a pause after it is
 * counted to it. A timing is handed out once its end is known.
 */
export class WordMarkAligner {
  readonly #words: TextWord[];
  /** The word index of each code point of the text (-1: between words). */
  readonly #wordAt: Int32Array;
  #open: { word: number; startS: number } | undefined;
  #lastWord = -1;

  constructor(text: string) {
    this.#words = wordsOf(text);
    const offsets = codePointOffsets(text);
    this.#wordAt = new Int32Array(offsets.length).fill(-1);
    let word = 0;
    for (let point = 0; point < offsets.length - 1; point++) {
      const at = offsets[point]!;
      while (word < this.#words.length && this.#words[word]!.textEnd <= at) word++;
      const current = this.#words[word];
      if (current !== undefined && at >= current.textStart) this.#wordAt[point] = word;
    }
  }

  /** The timings completed by `marks` (in the engine's order). */
  push(marks: readonly EngineMark[]): TextTiming[] {
    const done: TextTiming[] = [];
    for (const mark of marks) {
      const word = mark.kind === 'word' ? this.#wordOf(mark) : -1;
      // A further mark inside the word being spoken (the parts of a number) changes nothing.
      if (mark.kind === 'word' && (word < 0 || word <= this.#lastWord)) continue;
      if (this.#open !== undefined && mark.timeS > this.#open.startS) {
        done.push(this.#close(mark.timeS));
      }
      if (word >= 0) {
        if (this.#open !== undefined) done.push(this.#close(mark.timeS));
        this.#open = { word, startS: mark.timeS };
        this.#lastWord = word;
      }
    }
    return done;
  }

  /** The last word's timing, ending at `endS` (the end of the utterance's audio). */
  finish(endS: number): TextTiming[] {
    return this.#open === undefined ? [] : [this.#close(Math.max(endS, this.#open.startS))];
  }

  #close(endS: number): TextTiming {
    const open = this.#open!;
    this.#open = undefined;
    const word = this.#words[open.word]!;
    return { textStart: word.textStart, textEnd: word.textEnd, startS: open.startS, endS };
  }

  /** The word holding the mark's position (1-based code points), or -1. */
  #wordOf(mark: EngineMark): number {
    const point = mark.textPosition - 1;
    if (point < 0 || point >= this.#wordAt.length) return -1;
    return this.#wordAt[point]!;
  }
}
