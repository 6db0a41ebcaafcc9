import { splitPunctuation } from './normalize.ts';
import { MAX_PHONEME_TOKENS } from './phonemes.ts';
import { KOKORO_VOCAB } from './vocab.ts';

/** A word of a chunk as it went to espeak-ng: a run of non-space text between punctuation. */
export interface SpokenUnit {
  /** UTF-16 offsets in the chunk's text, end exclusive. */
  readonly start: number;
  readonly end: number;
}

/**
 * The phoneme tokens one or more units were spoken as. espeak-ng writes some words joined
 * in its IPA (`in the` as `ɪnðə`): such units share one group, timed as a whole.
 */
export interface TokenGroup {
  /** Index of the group within its chunk; units with the same group were spoken together. */
  readonly group: number;
  /** Model input positions (the leading pad is 0), end exclusive. */
  readonly tokenStart: number;
  readonly tokenEnd: number;
}

/** The units of a chunk's text, in order, as {@link phonemizeChunk} sends them to espeak-ng. */
export function spokenUnits(text: string): SpokenUnit[] {
  const units: SpokenUnit[] = [];
  let at = 0;
  for (const piece of splitPunctuation(text)) {
    if (!piece.punctuation) {
      for (const match of piece.text.matchAll(/\S+/gu)) {
        units.push({ start: at + match.index, end: at + match.index + match[0].length });
      }
    }
    at += piece.text.length;
  }
  return units;
}

/** Runs of non-space phonemes (IPA words) of each non-punctuation piece, as offsets. */
function ipaPieces(phonemes: string): { start: number; end: number }[][] {
  const pieces: { start: number; end: number }[][] = [];
  let at = 0;
  for (const piece of splitPunctuation(phonemes)) {
    if (!piece.punctuation && piece.text.trim().length > 0) {
      pieces.push(
        [...piece.text.matchAll(/\S+/gu)].map((match) => ({
          start: at + match.index,
          end: at + match.index + match[0].length,
        })),
      );
    }
    at += piece.text.length;
  }
  return pieces;
}

/** Model input position of each UTF-16 offset of `phonemes` (as tokenize() counts, pad first). */
function tokenPositions(phonemes: string): Int32Array {
  const positions = new Int32Array(phonemes.length + 1);
  let token = 1;
  let offset = 0;
  for (const symbol of phonemes) {
    for (let i = 0; i < symbol.length; i++) positions[offset + i] = token;
    offset += symbol.length;
    if (KOKORO_VOCAB.has(symbol)) token++;
  }
  positions[offset] = token;
  return positions;
}

/** Phoneme tokens of an IPA string, stress marks and spaces aside: its spoken length. */
function phonemeCount(ipa: string): number {
  let count = 0;
  for (const symbol of ipa) {
    if (symbol !== ' ' && symbol !== 'ˈ' && symbol !== 'ˌ' && KOKORO_VOCAB.has(symbol)) count++;
  }
  return count;
}

/** First phoneme of an IPA string, stress marks aside. */
function firstPhoneme(ipa: string): string {
  return ipa.replace(/[ˈˌ\s]/gu, '').slice(0, 1);
}

/**
 * Splits `n` items into `m` consecutive non-empty runs at the least total `cost(k, j, i)`
 * (run k made of items j..i-1); returns where each run starts. Needs n >= m.
 */
function partition(
  n: number,
  m: number,
  cost: (k: number, j: number, i: number) => number,
): number[] {
  // best[k][i]: least cost of the first k runs over the first i items.
  const best = Array.from({ length: m + 1 }, () => new Float64Array(n + 1).fill(Infinity));
  const from = Array.from({ length: m + 1 }, () => new Int32Array(n + 1));
  best[0]![0] = 0;
  for (let k = 1; k <= m; k++) {
    for (let i = k; i <= n - (m - k); i++) {
      for (let j = k - 1; j < i; j++) {
        const c = best[k - 1]![j]! + cost(k - 1, j, i);
        if (c < best[k]![i]!) {
          best[k]![i] = c;
          from[k]![i] = j;
        }
      }
    }
  }
  const starts = new Array<number>(m);
  let i = n;
  for (let k = m; k >= 1; k--) {
    starts[k - 1] = from[k]![i]!;
    i = starts[k - 1]!;
  }
  return starts;
}

/**
 * How badly a run of IPA `items` matches one IPA `part`: the difference of their spoken
 * lengths, plus one when they do not start with the same phoneme (espeak-ng reduces the
 * vowels of joined words, rarely their first consonant).
 */
function runCost(items: readonly string[], part: string): number {
  const length = items.reduce((sum, item) => sum + phonemeCount(item), 0);
  const start = firstPhoneme(items[0] ?? '') === firstPhoneme(part) ? 0 : 1;
  return Math.abs(length - phonemeCount(part)) + start;
}

/** The text pieces of a chunk and the IPA words of each, paired; undefined when they differ. */
function pairPieces(text: string, phonemes: string) {
  const textPieces = splitPunctuation(text)
    .filter((piece) => !piece.punctuation && piece.text.trim().length > 0)
    .map((piece) => piece.text.trim().split(/\s+/u));
  const ipa = ipaPieces(phonemes);
  return ipa.length === textPieces.length ? { textPieces, ipa } : undefined;
}

/**
 * The units of the pieces of `text` whose IPA joined or split words (espeak-ng writes `in
 * the` as `ɪnðə`): their IPA spoken one by one tells which IPA word holds which unit.
 */
export function unevenUnits(text: string, phonemes: string): string[] {
  const paired = pairPieces(text, phonemes);
  if (!paired) return [];
  return paired.textPieces.flatMap((units, piece) =>
    units.length === (paired.ipa[piece]?.length ?? 0) ? [] : units,
  );
}

/**
 * The token group of each unit of `text` (see {@link spokenUnits}), given the IPA
 * {@link phonemizeChunk} made of it and, for {@link unevenUnits}, the IPA of each alone
 * (`alone`, in that order). Word for word where a piece of text between two punctuation
 * runs has as many IPA words; elsewhere units are matched to IPA words by their spoken
 * lengths alone, and units that share an IPA word share its group. When the pieces
 * themselves do not line up, the whole chunk is one group. A unit whose tokens fell beyond
 * the model's context is undefined (never spoken).
 */
export function tokenGroups(
  text: string,
  phonemes: string,
  alone: readonly string[] = [],
): (TokenGroup | undefined)[] {
  const units = spokenUnits(text);
  const position = tokenPositions(phonemes);
  const last = MAX_PHONEME_TOKENS + 1;
  const group = (index: number, start: number, end: number): TokenGroup | undefined => {
    const tokenStart = Math.min(position[start] ?? last, last);
    const tokenEnd = Math.min(position[end] ?? last, last);
    return tokenEnd > tokenStart ? { group: index, tokenStart, tokenEnd } : undefined;
  };
  const paired = pairPieces(text, phonemes);
  if (!paired) {
    const ipa = ipaPieces(phonemes);
    const whole = group(0, ipa[0]?.[0]?.start ?? 0, ipa.at(-1)?.at(-1)?.end ?? 0);
    return units.map(() => whole);
  }
  const out: (TokenGroup | undefined)[] = [];
  let next = 0;
  let nextAlone = 0;
  paired.ipa.forEach((words, piece) => {
    const count = paired.textPieces[piece]?.length ?? 0;
    if (words.length === count) {
      for (const word of words) out.push(group(next++, word.start, word.end));
      return;
    }
    const unitIpa = alone.slice(nextAlone, nextAlone + count);
    nextAlone += count;
    const wordIpa = words.map((word) => phonemes.slice(word.start, word.end));
    if (unitIpa.length !== count || words.length === 0) {
      const whole = group(next++, words[0]?.start ?? 0, words.at(-1)?.end ?? 0);
      for (let i = 0; i < count; i++) out.push(whole);
    } else if (count > words.length) {
      // Several units in one IPA word: they share its group.
      const starts = partition(count, words.length, (k, j, i) =>
        runCost(unitIpa.slice(j, i), wordIpa[k]!),
      );
      words.forEach((word, w) => {
        const shared = group(next++, word.start, word.end);
        const end = starts[w + 1] ?? count;
        for (let u = starts[w]!; u < end; u++) out.push(shared);
      });
    } else {
      // One unit spoken as several IPA words: it spans them.
      const starts = partition(words.length, count, (k, j, i) =>
        runCost(wordIpa.slice(j, i), unitIpa[k]!),
      );
      for (let u = 0; u < count; u++) {
        const first = words[starts[u]!]!;
        const lastWord = words[(starts[u + 1] ?? words.length) - 1]!;
        out.push(group(next++, first.start, lastWord.end));
      }
    }
  });
  return out;
}
