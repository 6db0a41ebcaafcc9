import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SynthesisChunk } from '../../../../src/tts/providers/alignment.ts';
import { chunkText } from '../../../../src/tts/providers/kokoro/index.ts';
import { KokoroWordTimer } from '../../../../src/tts/providers/kokoro/word-timings.ts';
import { tokenGroups } from '../../../../src/tts/providers/kokoro/word-tokens.ts';
import { startKokoro } from './engine.ts';
import { FRAME_MS, PredictedWords } from './predicted-words.ts';

const TEXT =
  'Bright morning light filled the quiet harbor, while seven small boats waited. Gentle waves rolled toward the sandy shore.';
const WORDS = TEXT.replace(/[,.]/g, '').split(' ');

const predicted = new PredictedWords();
const kokoro = startKokoro({}, predicted.hooks);
afterAll(() => kokoro.close());

describe('Kokoro word timings from the predicted durations', () => {
  beforeAll(() => kokoro.pool.ready(), 60_000);

  it('times every word within one model frame of its predicted start, across chunk seams', async () => {
    predicted.reset();
    const chunks: SynthesisChunk[] = [];
    for await (const chunk of kokoro.provider.synthesize(
      { text: TEXT, providerVoiceId: 'af_heart', alignment: 'word' },
      new AbortController().signal,
    )) {
      chunks.push(chunk);
    }
    expect(predicted.chunks).toBeGreaterThanOrEqual(3);
    const timings = chunks.flatMap((chunk) => chunk.timings ?? []);
    expect(timings.map((t) => TEXT.slice(t.textStart, t.textEnd))).toEqual(WORDS);
    const expected = predicted.startsMs();
    expect(expected).toHaveLength(WORDS.length);
    timings.forEach((timing, i) => {
      expect(Math.abs(timing.startS * 1000 - expected[i]!)).toBeLessThanOrEqual(FRAME_MS);
      expect(timing.endS).toBeGreaterThan(timing.startS);
    });
    const durationS = chunks.reduce((sum, chunk) => sum + chunk.data.length / 2 / 24_000, 0);
    expect(timings.at(-1)!.endS).toBeLessThanOrEqual(durationS);
    // Each chunk carries the words it speaks: no timing waits for a later chunk's audio.
    const audioChunks = chunks.filter((chunk) => chunk.data.length > 0);
    expect(audioChunks.every((chunk) => (chunk.timings?.length ?? 0) > 0)).toBe(true);
  }, 120_000);

  it('places nothing between chunks: a chunk ending a sentence keeps the pause the model made there, one ending at a clause at most 200 ms of it', async () => {
    predicted.reset();
    const text = 'Sure, I can help with that. Your table is booked for seven, by the window.';
    expect(chunkText(text).map((chunk) => chunk.end)).toEqual(['clause', 'sentence', 'sentence']);
    let bytes = 0;
    for await (const chunk of kokoro.provider.synthesize(
      { text, providerVoiceId: 'af_heart' },
      new AbortController().signal,
    )) {
      bytes += chunk.data.length;
    }
    const runs = predicted.runs;
    expect(runs.length).toBe(3);
    let samples = 0;
    for (const { result, offsetSamples } of runs) {
      // Each run's audio starts where the one before it ended.
      expect(offsetSamples).toBe(samples);
      samples += result.pcm.length;
    }
    const keptEnd = (result: (typeof runs)[number]['result']) =>
      result.trimmedSamples + result.pcm.length;
    const trailingPad = (result: (typeof runs)[number]['result']) =>
      (result.durations.reduce((sum, d) => sum + d, 0) - result.durations.at(-1)!) * 600;
    // "Sure," made more pause than 200 ms after its last sound (0.01 of full scale).
    const sure = runs[0]!.result;
    let last = sure.pcm.length - 1;
    while (Math.abs(sure.pcm[last]!) <= 0.01 * 32767) last--;
    expect(trailingPad(sure)).toBeGreaterThan(sure.trimmedSamples + last + 1 + 200 * 24);
    expect(keptEnd(sure)).toBe(sure.trimmedSamples + last + 1 + 200 * 24);
    // "I can help with that." is kept up to its trailing pad.
    expect(keptEnd(runs[1]!.result)).toBeGreaterThanOrEqual(trailingPad(runs[1]!.result));
    expect(bytes).toBe(samples * 2);
  }, 120_000);

  it('lists word alignment only', async () => {
    expect(kokoro.provider.alignment).toEqual(['word']);
    const run = kokoro.provider.synthesize(
      { text: 'Hi.', providerVoiceId: 'af_heart', alignment: 'char' },
      new AbortController().signal,
    );
    await expect(run.next()).rejects.toMatchObject({ failure: 'rejected' });
  });
});

describe('Kokoro words and phoneme tokens', () => {
  it('splits IPA words espeak-ng joined by the words spoken alone, and times them together', () => {
    // espeak-ng writes "for the" as one IPA word; alone they are fɔːɹ and ðə.
    const groups = tokenGroups('for the old map', 'fɚðɪ ˈoʊld mˈæp', [
      'fɔːɹ',
      'ðə',
      'ˈoʊld',
      'mˈæp',
    ]);
    expect(groups).toEqual([
      { group: 0, tokenStart: 1, tokenEnd: 5 },
      { group: 0, tokenStart: 1, tokenEnd: 5 },
      { group: 1, tokenStart: 6, tokenEnd: 11 },
      { group: 2, tokenStart: 12, tokenEnd: 16 },
    ]);
  });

  it('pairs the words of the text with their normalised forms: numbers, titles, money', () => {
    const text = 'In 1990, Mr. Smith paid $5.50 for it.';
    const chunks = chunkText('In 19 90, Mister Smith paid 5 dollars and 50 cents for it.');
    const timer = new KokoroWordTimer(text, chunks);
    const units = chunks.map((chunk) => chunk.text.split(/[\s,.]+/).filter(Boolean).length);
    let unit = 0;
    const timings = chunks.flatMap((_, index) =>
      timer.chunkDone(
        index,
        Array.from({ length: units[index]! }, () => {
          const at = unit++;
          return { group: `u${at}`, startS: at, endS: at + 1 };
        }),
      ),
    );
    expect(timings.map((t) => [text.slice(t.textStart, t.textEnd), t.startS, t.endS])).toEqual([
      ['In', 0, 1],
      ['1990', 1, 3],
      ['Mr', 3, 4],
      ['Smith', 4, 5],
      ['paid', 5, 6],
      ['5.50', 6, 11],
      ['for', 11, 12],
      ['it', 12, 13],
    ]);
  });
});
