import { cleanPhonemes, espeakToKokoro, splitPunctuation } from './normalize.ts';
import { KOKORO_VOCAB, PAD_TOKEN_ID } from './vocab.ts';

/**
 * Turns lines of words into IPA, one output line per input line (espeak-ng behind a
 * process boundary: it is GPL). `NativeProvider.phonemize` is the implementation.
 */
export type Phonemizer = (
  lines: readonly string[],
  language: string,
  signal: AbortSignal,
) => Promise<string[]>;

/** Most phoneme tokens in one model run (the model's context minus the two pads). */
export const MAX_PHONEME_TOKENS = 510;

/**
 * IPA of one normalised chunk, the way kokoro-js builds it: word runs go to espeak-ng,
 * punctuation runs are kept verbatim between them, then the IPA is cleaned up for Kokoro
 * (kokoro-js's rules for English, misaki's `EspeakG2P` symbol map for other languages).
 */
export async function phonemizeChunk(
  text: string,
  language: string,
  phonemizer: Phonemizer,
  signal: AbortSignal,
): Promise<string> {
  const pieces = splitPunctuation(text);
  const words = pieces.filter((piece) => !piece.punctuation).map((piece) => piece.text.trim());
  const spoken = words.filter((line) => line.length > 0);
  const lines = spoken.length > 0 ? await phonemizer(spoken, language, signal) : [];
  let joined: string;
  if (lines.length === spoken.length) {
    let next = 0;
    joined = pieces
      .map((piece) => {
        if (piece.punctuation) return piece.text;
        return piece.text.trim().length > 0 ? (lines[next++] ?? '') : piece.text;
      })
      .join('');
  } else {
    // espeak-ng broke a line where we did not expect it (or dropped an unspeakable one):
    // keep every phoneme and only the final punctuation, which sets the intonation.
    const last = pieces.at(-1);
    joined = lines.join(' ') + (last?.punctuation ? last.text.trim() : '');
  }
  return kokoroIpa(joined, language);
}

/** espeak-ng IPA of `language` in the symbols Kokoro was trained on. */
export function kokoroIpa(ipa: string, language: string): string {
  if (language === 'en-us' || language === 'en-gb') {
    return cleanPhonemes(ipa.replaceAll(TIE, ''), language === 'en-us');
  }
  return espeakToKokoro(ipa);
}

/** Joins the letters of one multi-letter phoneme in the phonemizer's output (`--tie=^`). */
const TIE = '^';

/** Token ids of an IPA string, framed by pads; unknown symbols are dropped as in kokoro-js. */
export function tokenize(phonemes: string): number[] {
  const ids: number[] = [];
  for (const symbol of phonemes) {
    const id = KOKORO_VOCAB.get(symbol);
    if (id !== undefined) ids.push(id);
  }
  return [PAD_TOKEN_ID, ...ids.slice(0, MAX_PHONEME_TOKENS), PAD_TOKEN_ID];
}
