/*
 * Text normalisation and phoneme clean-up as Kokoro expects them.
 *
 * Origin: kokoro-js 1.2.1 (src/phonemize.js, Apache-2.0, by Xenova), itself a port of
 * hexgrad's misaki English normaliser. Reproduced here so the service does not depend on
 * kokoro-js (which pulls @huggingface/transformers and embeds espeak-ng as WebAssembly).
 */

/** Punctuation Kokoro keeps as tokens; text between runs of it goes to espeak-ng. */
const PUNCTUATION = ';:,.!?¡¿—…"«»“”(){}[]';
const PUNCTUATION_RUN = new RegExp(
  `(\\s*[${PUNCTUATION.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}]+\\s*)+`,
  'g',
);

function splitNumber(match: string): string {
  if (match.includes('.')) return match;
  if (match.includes(':')) {
    const [hours, minutes] = match.split(':').map(Number) as [number, number];
    if (minutes === 0) return `${hours} o'clock`;
    if (minutes < 10) return `${hours} oh ${minutes}`;
    return `${hours} ${minutes}`;
  }
  const year = Number.parseInt(match.slice(0, 4), 10);
  if (year < 1100 || year % 1000 < 10) return match;
  const left = match.slice(0, 2);
  const right = Number.parseInt(match.slice(2, 4), 10);
  const suffix = match.endsWith('s') ? 's' : '';
  if (year % 1000 >= 100 && year % 1000 <= 999) {
    if (right === 0) return `${left} hundred${suffix}`;
    if (right < 10) return `${left} oh ${right}${suffix}`;
  }
  return `${left} ${right}${suffix}`;
}

function flipMoney(match: string): string {
  const bill = match[0] === '$' ? 'dollar' : 'pound';
  const amount = match.slice(1);
  if (Number.isNaN(Number(amount))) return `${amount} ${bill}s`;
  if (!match.includes('.')) return `${amount} ${bill}${amount === '1' ? '' : 's'}`;
  const [whole, fraction = ''] = amount.split('.') as [string, string?];
  const cents = Number.parseInt(fraction.padEnd(2, '0'), 10);
  const coins =
    match[0] === '$' ? (cents === 1 ? 'cent' : 'cents') : cents === 1 ? 'penny' : 'pence';
  return `${whole} ${bill}${whole === '1' ? '' : 's'} and ${cents} ${coins}`;
}

function pointNumber(match: string): string {
  const [whole, fraction = ''] = match.split('.') as [string, string?];
  return `${whole} point ${fraction.split('').join(' ')}`;
}

/** Rewrites text the way Kokoro's English front end does before phonemisation. */
export function normalizeText(text: string): string {
  return text
    .replace(/[‘’]/g, "'")
    .replace(/«/g, '“')
    .replace(/»/g, '”')
    .replace(/[“”]/g, '"')
    .replace(/\(/g, '«')
    .replace(/\)/g, '»')
    .replace(/、/g, ', ')
    .replace(/。/g, '. ')
    .replace(/！/g, '! ')
    .replace(/，/g, ', ')
    .replace(/：/g, ': ')
    .replace(/；/g, '; ')
    .replace(/？/g, '? ')
    .replace(/[^\S \n]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .replace(/(?<=\n) +(?=\n)/g, '')
    .replace(/\bD[Rr]\.(?= [A-Z])/g, 'Doctor')
    .replace(/\b(?:Mr\.|MR\.(?= [A-Z]))/g, 'Mister')
    .replace(/\b(?:Ms\.|MS\.(?= [A-Z]))/g, 'Miss')
    .replace(/\b(?:Mrs\.|MRS\.(?= [A-Z]))/g, 'Mrs')
    .replace(/\betc\.(?! [A-Z])/gi, 'etc')
    .replace(/\b(y)eah?\b/gi, "$1e'a")
    .replace(/\d*\.\d+|\b\d{4}s?\b|(?<!:)\b(?:[1-9]|1[0-2]):[0-5]\d\b(?!:)/g, splitNumber)
    .replace(/(?<=\d),(?=\d)/g, '')
    .replace(
      /[$£]\d+(?:\.\d+)?(?: hundred| thousand| (?:[bm]|tr)illion)*\b|[$£]\d+\.\d\d?\b/gi,
      flipMoney,
    )
    .replace(/\d*\.\d+/g, pointNumber)
    .replace(/(?<=\d)-(?=\d)/g, ' to ')
    .replace(/(?<=\d)S/g, ' S')
    .replace(/(?<=[BCDFGHJ-NP-TV-Z])'?s\b/g, "'S")
    .replace(/(?<=X')S\b/g, 's')
    .replace(/(?:[A-Za-z]\.){2,} [a-z]/g, (match) => match.replace(/\./g, '-'))
    .replace(/(?<=[A-Z])\.(?=[A-Z])/gi, '-')
    .trim();
}

/**
 * Text of a language other than English as Kokoro's reference pipeline passes it to
 * espeak-ng (misaki `EspeakG2P`): no number or abbreviation rules (espeak-ng reads those in
 * the language itself), angle quotes become curly quotes and parentheses angle quotes.
 */
export function normalizeOtherText(text: string): string {
  return text
    .replace(/«/g, '“')
    .replace(/»/g, '”')
    .replace(/\(/g, '«')
    .replace(/\)/g, '»')
    .replace(/[^\S \n]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** A piece of normalised text: words for espeak-ng, or punctuation kept verbatim. */
export interface TextPiece {
  readonly punctuation: boolean;
  readonly text: string;
}

/** Splits normalised text into word runs and the punctuation runs between them. */
export function splitPunctuation(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(PUNCTUATION_RUN)) {
    const index = match.index ?? 0;
    if (last < index) pieces.push({ punctuation: false, text: text.slice(last, index) });
    if (match[0].length > 0) pieces.push({ punctuation: true, text: match[0] });
    last = index + match[0].length;
  }
  if (last < text.length) pieces.push({ punctuation: false, text: text.slice(last) });
  return pieces;
}

/**
 * Adjusts espeak-ng's IPA to the symbols Kokoro was trained on (`american` selects the
 * en-US rules).
 */
export function cleanPhonemes(ipa: string, american: boolean): string {
  let out = ipa
    .replace(/kəkˈoːɹoʊ/g, 'kˈoʊkəɹoʊ')
    .replace(/kəkˈɔːɹəʊ/g, 'kˈəʊkəɹəʊ')
    .replace(/ʲ/g, 'j')
    .replace(/r/g, 'ɹ')
    .replace(/x/g, 'k')
    .replace(/ɬ/g, 'l')
    .replace(/(?<=[a-zɹː])(?=hˈʌndɹɪd)/g, ' ')
    .replace(/ z(?=[;:,.!?¡¿—…"«»“” ]|$)/g, 'z');
  if (american) out = out.replace(/(?<=nˈaɪn)ti(?!ː)/g, 'di');
  return out.trim();
}

/**
 * Multi-letter espeak-ng phonemes (joined by the tie `^`) and the single Kokoro symbols
 * they were trained as, for languages other than English.
 *
 * Origin: misaki 0.9 `EspeakG2P.E2M` (hexgrad/misaki, misaki/espeak.py, Apache-2.0).
 */
const ESPEAK_TO_KOKORO: readonly (readonly [string, string])[] = [
  ['a^ɪ', 'I'],
  ['a^ʊ', 'W'],
  ['d^z', 'ʣ'],
  ['d^ʒ', 'ʤ'],
  ['e^ɪ', 'A'],
  ['o^ʊ', 'O'],
  ['ə^ʊ', 'Q'],
  ['s^s', 'S'],
  ['t^s', 'ʦ'],
  ['t^ʃ', 'ʧ'],
  ['ɔ^ɪ', 'Y'],
];

/**
 * espeak-ng IPA of a language other than English (written with `--tie=^`) in Kokoro's
 * symbols, as misaki's `EspeakG2P` does: language-switch flags such as `(en)` that
 * espeak-ng inserts around foreign words are removed, tied pairs become one symbol, the
 * remaining ties and hyphens are dropped, and the angle quotes that stood for parentheses
 * become parentheses again.
 */
export function espeakToKokoro(ipa: string): string {
  let out = ipa.replace(/\([a-z^-]+\)/g, '');
  for (const [from, to] of ESPEAK_TO_KOKORO) out = out.replaceAll(from, to);
  return out
    .replace(/[\^-]/g, '')
    .replace(/«/g, '(')
    .replace(/»/g, ')')
    .replace(/ {2,}/g, ' ')
    .trim();
}
