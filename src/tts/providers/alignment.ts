import type { PcmChunk } from '../../../media/pcm.ts';

/** How finely a request asks for timings: per word, or per character. */
export type AlignmentGranularity = 'word' | 'char';

/** The public capability a voice advertises for each granularity it can align at. */
export const ALIGNMENT_CAPABILITY = {
  word: 'word_alignment',
  char: 'char_alignment',
} as const satisfies Record<AlignmentGranularity, string>;

/**
 * When one piece of a segment's text is spoken. Offsets index the text the provider was
 * given (UTF-16 code units, end exclusive); times are seconds from the segment's first
 * sample. A provider yields a timing only once both ends are known.
 */
export interface TextTiming {
  readonly textStart: number;
  readonly textEnd: number;
  readonly startS: number;
  readonly endS: number;
}

/**
 * PCM from a provider, with the timings that became known with it when the request asked
 * for alignment. A chunk may carry timings and no audio (at the end of a segment).
 */
export interface SynthesisChunk extends PcmChunk {
  readonly timings?: readonly TextTiming[];
}

/**
 * The UTF-16 offset of each code point of `text`, plus one past the end: espeak-ng and
 * vendors count characters as code points, JavaScript strings count code units.
 */
export function codePointOffsets(text: string): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const char of text) {
    offsets.push(at);
    at += char.length;
  }
  offsets.push(at);
  return offsets;
}

/** A word of the text: a run of non-space characters without its outer punctuation. */
export interface TextWord {
  readonly textStart: number;
  readonly textEnd: number;
}

const WORD_PATTERN = /\S+/gu;
const OUTER_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** The words of `text`, in order, as UTF-16 ranges. */
export function wordsOf(text: string): TextWord[] {
  const words: TextWord[] = [];
  for (const match of text.matchAll(WORD_PATTERN)) {
    const token = match[0];
    const core = token.replace(OUTER_PUNCTUATION, '');
    // A token of punctuation alone (a dash, an ellipsis) is not a spoken word.
    if (core === '') continue;
    const lead = token.length - token.replace(/^[\p{P}\p{S}]+/u, '').length;
    const textStart = match.index + lead;
    words.push({ textStart, textEnd: textStart + core.length });
  }
  return words;
}
