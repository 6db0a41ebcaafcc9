import { codePointLength } from './document-records.ts';
import { textWindows } from './text-windows.ts';

/**
 * The terms a document is indexed by and a query is matched with, computed here rather
 * than by the database so SQLite and PostgreSQL index exactly the same terms:
 *
 * - letters are lower-cased, Latin and Greek letters lose their accents (`Café` is `cafe`),
 *   compatibility forms are folded (full-width `ＡＢＣ` is `abc`);
 * - words are found with the Unicode word rules (`Intl.Segmenter`, which also splits Thai),
 *   apostrophes inside a word are dropped (`don't` is `dont`), and a word is cut at any
 *   other character that is not a letter, mark or digit (`COVID-19` is `covid`, `19`);
 * - Chinese, Japanese and Korean text, written without spaces between words, is indexed as
 *   overlapping pairs of characters (`知识库` is `知识`, `识库`), as Lucene's CJK analyzer
 *   does, so a query matches whatever a dictionary would have cut;
 * - English plurals are reduced by the S-stemmer (Harman 1991) with Porter's `sses` rule:
 *   `policies` is `policy`, `uses` is `use`, `refunds` is `refund`, `classes` is `class`;
 *   words of fewer than 4 letters are kept as they are;
 * - terms longer than {@link MAX_TERM_CHARS} code points (hashes, encoded data) are left out.
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const part of fold(text).split(SPACELESS_RUN)) {
    if (part === '') continue;
    if (SPACELESS_ONLY.test(part)) {
      pushPairs(part, terms);
      continue;
    }
    for (const window of textWindows(part, SEGMENTER_WINDOW)) {
      for (const segment of WORDS.segment(window)) {
        if (!segment.isWordLike) continue;
        for (const run of segment.segment.replace(INNER_APOSTROPHE, '').split(NOT_WORD)) {
          if (run !== '' && codePointLength(run) <= MAX_TERM_CHARS) terms.push(stem(run));
        }
      }
    }
  }
  return terms;
}

/** Longest term indexed, in code points. */
export const MAX_TERM_CHARS = 40;

const WORDS = new Intl.Segmenter('und', { granularity: 'word' });
/** The longest text the word segmenter is given at once (see text-windows.ts). */
const SEGMENTER_WINDOW = 1000;
const SPACELESS =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc';
const SPACELESS_RUN = new RegExp(`([${SPACELESS}]+)`, 'u');
const SPACELESS_ONLY = new RegExp(`^[${SPACELESS}]+$`, 'u');
const INNER_APOSTROPHE = /(?<=\p{L})['\u2019\u02bc](?=\p{L})/gu;
const NOT_WORD = /[^\p{L}\p{M}\p{N}]+/u;
const ACCENTED = /([\p{Script=Latin}\p{Script=Greek}])\p{M}+/gu;

function fold(text: string): string {
  return text.normalize('NFKD').replace(ACCENTED, '$1').normalize('NFC').toLowerCase();
}

function pushPairs(run: string, terms: string[]): void {
  const chars = [...run];
  if (chars.length === 1) {
    terms.push(run);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) terms.push(`${chars[i]}${chars[i + 1]}`);
}

/**
 * The S-stemmer's three rules (with Porter's `sses` to `ss` before the second), the first
 * that applies, on words of plain Latin letters.
 */
function stem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) {
    return `${word.slice(0, -3)}y`;
  }
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) {
    return word.slice(0, -1);
  }
  return word;
}
