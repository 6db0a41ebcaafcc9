import type { PcmChunk } from '../../media/pcm.ts';

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
