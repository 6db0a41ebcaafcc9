import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chunkText,
  normalizeText,
  phonemizeChunk,
  tokenize,
} from '../../../../src/tts/providers/kokoro/index.ts';
import {
  espeakToKokoro,
  normalizeOtherText,
} from '../../../../src/tts/providers/kokoro/normalize.ts';
import { NativeProvider } from '../../../../src/tts/providers/native/index.ts';

describe('Kokoro text front end', () => {
  const native = new NativeProvider();
  afterAll(() => native.close());
  const phonemizer = (lines: readonly string[], language: string, signal: AbortSignal) =>
    native.phonemize(lines, language, signal);

  it('normalises text as kokoro-js does', () => {
    expect(normalizeText('Dr. Smith paid $5.50 in 1990.')).toBe(
      'Doctor Smith paid 5 dollars and 50 cents in 19 90.',
    );
    expect(normalizeText('Mr. Jones met Ms. Lee at 3:05, pages 10-12.')).toBe(
      'Mister Jones met Miss Lee at 3 oh 5, pages 10 to 12.',
    );
    expect(normalizeText('“Quoted” (aside) 1,000 and 3.14')).toBe(
      '"Quoted" «aside» 1000 and 3 point 1 4',
    );
  });

  it('splits at sentences and clauses with a short first chunk', () => {
    const chunks = chunkText(
      'The quick brown fox jumps over the lazy dog today. Then, after a long rest in the sun, it runs home!',
    );
    expect(chunks[0]).toEqual({ text: 'The quick brown fox', end: 'word' });
    expect(chunks[1]).toEqual({ text: 'jumps over the lazy dog today.', end: 'sentence' });
    expect(
      chunks
        .slice(2)
        .map((chunk) => chunk.text)
        .join(' '),
    ).toBe('Then, after a long rest in the sun, it runs home!');
    expect(chunkText('Hello there, my dear friend, how are you?')[0]).toEqual({
      text: 'Hello there,',
      end: 'clause',
    });
    expect(chunkText('Short one.')).toEqual([{ text: 'Short one.', end: 'sentence' }]);
    expect(chunkText('  ')).toEqual([]);
  });

  it('takes the first clause of a reply alone, then chunks that span sentences', () => {
    expect(
      chunkText('Sure, I can help with that. Your appointment is confirmed for Tuesday at ten.'),
    ).toEqual([
      { text: 'Sure,', end: 'clause' },
      { text: 'I can help with that.', end: 'sentence' },
      { text: 'Your appointment is confirmed for Tuesday at ten.', end: 'sentence' },
    ]);
    expect(
      chunkText('Hello there, how are you? I am fine. Thanks for asking. See you soon.'),
    ).toEqual([
      { text: 'Hello there,', end: 'clause' },
      { text: 'how are you? I am fine.', end: 'sentence' },
      { text: 'Thanks for asking. See you soon.', end: 'sentence' },
    ]);
    // A remainder within a quarter of the limit joins the chunk instead of a run of its own.
    expect(chunkText('Por favor, reserva una mesa para dos personas esta noche.')).toEqual([
      { text: 'Por favor,', end: 'clause' },
      { text: 'reserva una mesa para dos personas esta noche.', end: 'sentence' },
    ]);
  });

  it('grows each later chunk with the text before it, cut between words', () => {
    const paragraph =
      'The library opens at nine in the morning and closes at six in the evening, except on public holidays. Members may borrow up to twelve books at a time, for three weeks each, and renew them twice online unless another reader has reserved them. The reading room on the second floor is quiet and has power outlets at every desk.';
    const text = `${paragraph} ${paragraph} ${paragraph}`;
    const chunks = chunkText(text);
    let before = 0;
    for (const [index, chunk] of chunks.entries()) {
      if (index > 0) {
        const limit = Math.min(220, Math.max(40, Math.floor(2.5 * before)));
        expect(chunk.text.length).toBeLessThanOrEqual(Math.min(220, Math.floor(limit * 1.25)));
      }
      before += chunk.text.length + 1;
    }
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(text.split(/\s+/).join(' '));
    // Fewer runs than one per sentence: every run pays for the silence of its leading pad.
    expect(chunks.length).toBeLessThan(text.split(/(?<=\.)\s+/).length);
  });

  it('keeps every chunk within the model context', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    for (const chunk of chunkText(`${long}.`)) expect(chunk.text.length).toBeLessThanOrEqual(220);
  });

  it("uses espeak-ng's own IPA, with punctuation kept between word runs", async () => {
    const signal = new AbortController().signal;
    const text = 'Hello there, this is a test; it works!';
    const ipa = await phonemizeChunk(text, 'en-us', phonemizer, signal);
    const direct = (words: string) =>
      execFileSync('espeak-ng', ['-q', '--ipa', '-v', 'en-us', words]).toString().trim();
    expect(ipa).toBe(
      `${direct('Hello there')}, ${direct('this is a test')}; ${direct('it works')}!`.replace(
        /r/g,
        'ɹ',
      ),
    );
    // British English goes through espeak-ng's en-gb rules (non-rhotic "there").
    const british = await phonemizeChunk('over there', 'en-gb', phonemizer, signal);
    expect(british).toBe(
      execFileSync('espeak-ng', ['-q', '--ipa', '-v', 'en-gb', 'over there']).toString().trim(),
    );
    expect(british).not.toContain('ɹ');
  });

  it('maps espeak-ng IPA of other languages to Kokoro symbols as misaki does', async () => {
    const signal = new AbortController().signal;
    // Tied diphthongs and affricates become Kokoro's single symbols; untied pairs stay.
    expect(await phonemizeChunk('Hay seis chicos, ¿no?', 'es', phonemizer, signal)).toBe(
      'ˈI sˈAs ʧˈikos, ¿nˈo?',
    );
    expect(await phonemizeChunk('pizza', 'it', phonemizer, signal)).toBe('pˈiʦːa');
    // Language-switch flags go; angle quotes that stood for parentheses come back.
    expect(espeakToKokoro('(^e^n)hˈe^ɪ(^h^i) «t^ʃa-ba»')).toBe('hˈA (ʧaba)');
    // No English number rules outside English: espeak-ng reads digits in the language.
    expect(normalizeOtherText('Dr. Pérez (3,5 €)  «hola»')).toBe('Dr. Pérez «3,5 €» “hola”');
  });

  it('tokenizes IPA into Kokoro ids framed by pads, dropping unknown symbols', () => {
    expect(tokenize('hə,')).toEqual([0, 50, 83, 3, 0]);
    expect(tokenize('h☃ə')).toEqual([0, 50, 83, 0]);
    expect(tokenize('a'.repeat(600))).toHaveLength(512);
  });
});
