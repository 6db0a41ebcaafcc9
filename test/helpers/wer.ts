/**
 * Word error rate: (substitutions + deletions + insertions) / reference words, after
 * normalizing case and punctuation. Used by the speech-to-text tests and bench/stt.ts.
 */

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/**
 * Lower-case words without punctuation; apostrophes inside words are kept ("don't"), and
 * the numbers 0-20 written as digits become words (Whisper writes "2" for "two").
 * Unicode NFC first, and combining marks stay in their word (Devanagari vowel signs).
 */
export function normalizeWords(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^\p{L}\p{M}\p{N}'\s-]/gu, ' ')
    .replace(/-/g, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '')
    .map((word) => (/^\d+$/.test(word) ? (NUMBER_WORDS[Number(word)] ?? word) : word));
}

/** Minimum word edits turning `hypothesis` into `reference` (Levenshtein over words). */
export function wordEditDistance(
  reference: readonly string[],
  hypothesis: readonly string[],
): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution =
        (previous[j - 1] ?? 0) + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[hypothesis.length] ?? 0;
}

/** WER of `hypothesis` against `reference`; an empty reference gives 0 or 1. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return wordEditDistance(ref, hyp) / ref.length;
}
