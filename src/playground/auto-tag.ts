import { hasInlineCues } from '../tts/tags.ts';

/** The tags Auto Tag inserts (all from the Playground's vocabulary). */
export type AutoTagName =
  | 'laughs'
  | 'sighs'
  | 'whispers'
  | 'sad'
  | 'surprised'
  | 'excited'
  | 'curious';

/** Characters that end a sentence, Western and CJK full-width. */
const TERMINALS = new Set(['.', '!', '?', '…', '。', '！', '？']);
/** Closing quotes and parentheses that stay with the sentence they close. */
const CLOSERS = new Set(['"', "'", '”', '’', '»', '」', '』', ')', '）']);
const SPEAKABLE = /[\p{L}\p{N}]/u;
const DIGIT = /\d/;

/** What a sentence is judged on: its words (lower case, straight apostrophes) and end. */
interface SentenceFeatures {
  words: string;
  exclaims: boolean;
  asks: boolean;
}

/** The rules in order: the first that matches tags the sentence. */
const RULES: readonly { tag: AutoTagName; matches(sentence: SentenceFeatures): boolean }[] = [
  {
    tag: 'laughs',
    matches: (s) => /\b(?:(?:ha){2,}h?|(?:he){2,}h?|lol|lmao|rofl|hilarious)\b/.test(s.words),
  },
  {
    tag: 'sighs',
    matches: (s) => /\b(?:sigh(?:s|ed)?|ugh|alas|oh well|here we go again)\b/.test(s.words),
  },
  {
    tag: 'whispers',
    matches: (s) =>
      /\b(?:whisper(?:s|ed|ing)?|secret(?:s|ly)?|quietly|between you and me|don't tell|shh+)\b/.test(
        s.words,
      ),
  },
  {
    tag: 'sad',
    matches: (s) =>
      /\b(?:sorry|sad(?:ly|ness)?|unfortunately|heartbroken|tragic(?:ally)?|grief|lonely|miss (?:you|him|her|them)|passed away|i regret)\b/.test(
        s.words,
      ),
  },
  {
    tag: 'surprised',
    matches: (s) =>
      (s.asks && s.exclaims) || (s.asks && /^(?:wow|whoa|no way|oh my)\b/.test(s.words)),
  },
  {
    tag: 'excited',
    matches: (s) =>
      s.exclaims ||
      /\b(?:amazing|awesome|incredible|fantastic|wonderful|can't wait|hooray|yay|wow|congratulations|thrilled)\b/.test(
        s.words,
      ),
  },
  {
    tag: 'curious',
    matches: (s) => s.asks || /\b(?:i wonder|wondering|curious(?:ly)?|what if)\b/.test(s.words),
  },
];

/**
 * Auto Tag: prefixes sentences of plain text with an emotion or delivery tag, offline and
 * deterministically (the same text always gives the same answer). Each sentence gets at most
 * one tag, from the first rule that matches it:
 *
 * 1. `[laughs]`: laughter words (haha, hehe, lol, lmao, rofl, hilarious);
 * 2. `[sighs]`: sigh, ugh, alas, "oh well", "here we go again";
 * 3. `[whispers]`: whisper, secret, quietly, "between you and me", "don't tell", shh;
 * 4. `[sad]`: sorry, sad, unfortunately, heartbroken, tragic, grief, lonely, "miss you",
 *    "passed away", "I regret";
 * 5. `[surprised]`: a sentence ending in both `?` and `!`, or a question opening with wow,
 *    whoa, "no way" or "oh my";
 * 6. `[excited]`: a sentence ending in `!`, or amazing, awesome, incredible, fantastic,
 *    wonderful, "can't wait", hooray, yay, wow, congratulations, thrilled;
 * 7. `[curious]`: a sentence ending in `?`, or "I wonder", wondering, curious, "what if".
 *
 * Words match whole words, case-insensitively (English); the punctuation rules work in any
 * script (full-width `！` and `？` included). A sentence that already holds a `[cue]` is left
 * as it is, and so is one with nothing speakable. Everything else in the text (spacing,
 * line breaks, punctuation) is kept byte for byte.
 *
 * @example autoTag('Haha, that was close. Did you see it?')
 * // '[laughs] Haha, that was close. [curious] Did you see it?'
 */
export function autoTag(text: string): string {
  return splitSentences(text)
    .map((piece) => {
      const tag = tagFor(piece);
      if (!tag) return piece;
      const at = piece.search(/\S/);
      return `${piece.slice(0, at)}[${tag}] ${piece.slice(at)}`;
    })
    .join('');
}

/** The tag for one sentence, or undefined when it keeps none. */
export function tagFor(sentence: string): AutoTagName | undefined {
  if (!SPEAKABLE.test(sentence) || hasInlineCues(sentence)) return undefined;
  const features = featuresOf(sentence);
  return RULES.find((rule) => rule.matches(features))?.tag;
}

function featuresOf(sentence: string): SentenceFeatures {
  let end = sentence.length;
  while (end > 0 && (/\s/.test(sentence[end - 1]!) || CLOSERS.has(sentence[end - 1]!))) end--;
  let start = end;
  while (start > 0 && TERMINALS.has(sentence[start - 1]!)) start--;
  const terminal = sentence.slice(start, end);
  return {
    words: sentence.toLowerCase().replace(/[’‘]/g, "'").trim(),
    exclaims: /[!！]/.test(terminal),
    asks: /[?？]/.test(terminal),
  };
}

/**
 * The text cut into sentences that join back into it exactly: each piece runs to a run of
 * sentence-ending punctuation (with the closing quotes after it) or to a line break. A
 * point between digits (3.5) ends nothing, and neither does punctuation inside a `[cue]`.
 */
export function splitSentences(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\n' || ch === '\r') {
      while (i < text.length && (text[i] === '\n' || text[i] === '\r')) i++;
      pieces.push(text.slice(start, i));
      start = i;
      continue;
    }
    if (ch === '[') {
      const close = text.indexOf(']', i);
      const newline = text.indexOf('\n', i);
      if (close > i && (newline < 0 || close < newline)) {
        i = close + 1;
        continue;
      }
    }
    const decimalPoint =
      ch === '.' && DIGIT.test(text[i - 1] ?? '') && DIGIT.test(text[i + 1] ?? '');
    if (TERMINALS.has(ch) && !decimalPoint) {
      while (i < text.length && TERMINALS.has(text[i]!)) i++;
      while (i < text.length && CLOSERS.has(text[i]!)) i++;
      pieces.push(text.slice(start, i));
      start = i;
      continue;
    }
    i++;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
