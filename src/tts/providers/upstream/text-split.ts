/** Length in Unicode code points, the unit vendors count characters in. */
export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Splits `text` into parts of at most `maxChars` code points for a vendor's per-request
 * limit. Parts end on sentence boundaries (Unicode sentence segmentation, so it works
 * beyond English); a sentence longer than the limit is split between words, and a word
 * longer than the limit between code points. Whitespace at part edges is trimmed; text
 * within the limit comes back as one part unchanged.
 *
 * @example
 * splitText('One. Two. Three.', 10) // ['One. Two.', 'Three.']
 */
export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  }
  if (codePointCount(text) <= maxChars) return [text];
  const sentences = Array.from(sentenceSegmenter.segment(text), (s) => s.segment);
  return pack(sentences, maxChars, (sentence) =>
    pack(
      Array.from(wordSegmenter.segment(sentence), (w) => w.segment),
      maxChars,
      (word) => splitCodePoints(word, maxChars),
    ),
  );
}

/**
 * Greedily joins `pieces` into parts of at most `maxChars` (measured trimmed); a piece too
 * long on its own is handed to `splitLong`.
 */
function pack(
  pieces: readonly string[],
  maxChars: number,
  splitLong: (piece: string) => string[],
): string[] {
  const parts: string[] = [];
  let current = '';
  const flush = () => {
    const trimmed = current.trim();
    if (trimmed !== '') parts.push(trimmed);
    current = '';
  };
  for (const piece of pieces) {
    if (codePointCount((current + piece).trim()) <= maxChars) {
      current += piece;
      continue;
    }
    flush();
    if (codePointCount(piece.trim()) <= maxChars) {
      current = piece;
      continue;
    }
    const split = splitLong(piece.trim());
    // The last fragment may still share a part with the next piece.
    parts.push(...split.slice(0, -1));
    current = split.at(-1) ?? '';
  }
  flush();
  return parts;
}

function splitCodePoints(text: string, maxChars: number): string[] {
  const points = Array.from(text);
  const parts: string[] = [];
  for (let i = 0; i < points.length; i += maxChars) {
    parts.push(points.slice(i, i + maxChars).join(''));
  }
  return parts;
}
