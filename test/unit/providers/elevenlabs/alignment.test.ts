import { afterEach, describe, expect, it } from 'vitest';
import type { SynthesisChunk, TextTiming } from '../../../../src/tts/providers/alignment.ts';
import { ElevenLabsProvider } from '../../../../src/tts/providers/elevenlabs/index.ts';
import { FakeElevenLabs, fakeCharacterTimes } from '../../../fakes/elevenlabs.ts';

const TEXT = 'The quick brown fox, jumps!';
const fakes: FakeElevenLabs[] = [];

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function synthesize(granularity: 'word' | 'char') {
  const fake = await FakeElevenLabs.start({ chunks: 7 });
  fakes.push(fake);
  const provider = new ElevenLabsProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
  const chunks: SynthesisChunk[] = [];
  for await (const chunk of provider.synthesize(
    {
      text: TEXT,
      providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
      model: 'eleven_v3',
      voiceTags: ['warm'],
      preferredSampleRateHz: 24_000,
      alignment: granularity,
    },
    new AbortController().signal,
  )) {
    chunks.push(chunk);
  }
  provider.close();
  const samples = chunks.reduce((sum, chunk) => sum + chunk.data.byteLength / 2, 0);
  const timings: TextTiming[] = chunks.flatMap((chunk) => chunk.timings ?? []);
  const sent = (fake.requests[0]!.body as { text: string }).text;
  return { fake, samples, timings, sent };
}

describe('ElevenLabs character alignment', () => {
  it('asks /stream/with-timestamps and maps the characters of the sent text onto the request text', async () => {
    const { fake, samples, timings, sent } = await synthesize('char');
    expect(fake.requests[0]!.path).toBe(
      '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb/stream/with-timestamps',
    );
    // The inline cue is sent first and has no place in the request's text.
    expect(sent).toBe(`[warm] ${TEXT}`);
    const vendor = fakeCharacterTimes(sent, samples, 24_000).slice('[warm] '.length);
    const spoken = vendor.map((c, index) => ({ ...c, index })).filter((c) => c.character !== ' ');
    expect(timings.map((t) => TEXT.slice(t.textStart, t.textEnd))).toEqual(
      spoken.map((c) => c.character),
    );
    for (const [i, timing] of timings.entries()) {
      expect(timing.textStart).toBe(spoken[i]!.index);
      expect(timing.startS).toBeCloseTo(spoken[i]!.startS, 9);
      expect(timing.endS).toBeCloseTo(spoken[i]!.endS, 9);
    }
  });

  it('makes words of the characters: first character’s start to last character’s end, punctuation left out', async () => {
    const { samples, timings, sent } = await synthesize('word');
    const vendor = fakeCharacterTimes(sent, samples, 24_000).slice('[warm] '.length);
    const words = [
      ['The', 0, 3],
      ['quick', 4, 9],
      ['brown', 10, 15],
      ['fox', 16, 19],
      ['jumps', 21, 26],
    ] as const;
    expect(timings.map((t) => TEXT.slice(t.textStart, t.textEnd))).toEqual(words.map((w) => w[0]));
    for (const [i, [, first, end]] of words.entries()) {
      expect(timings[i]!.startS).toBeCloseTo(vendor[first]!.startS, 9);
      expect(timings[i]!.endS).toBeCloseTo(vendor[end - 1]!.endS, 9);
    }
  });
});
