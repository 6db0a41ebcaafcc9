import { afterEach, describe, expect, it } from 'vitest';
import type { SynthesisChunk, TextTiming } from '../../../../src/tts/providers/alignment.ts';
import { FishAudioProvider } from '../../../../src/tts/providers/fishaudio/index.ts';
import { fishTimestampsPcm } from '../../../../src/tts/providers/fishaudio/timestamps-stream.ts';
import { FakeFishAudio } from '../../../fakes/fishaudio.ts';
import { fakeFishChunks } from '../../../fakes/fishaudio-timestamps.ts';

const VOICE = '802e3bc2b27e49c2995d23ef70e6ac89';
const TEXT = 'The quick brown fox, jumps! Then it can’t rest.';
const fakes: FakeFishAudio[] = [];

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function synthesize(alignment: 'word' | undefined) {
  const fake = await FakeFishAudio.start({ chunks: 7 });
  fakes.push(fake);
  const provider = new FishAudioProvider({ baseUrl: fake.url, apiKey: fake.apiKey });
  const chunks: SynthesisChunk[] = [];
  for await (const chunk of provider.synthesize(
    {
      text: TEXT,
      providerVoiceId: VOICE,
      model: 's2-pro',
      voiceTags: ['warm'],
      preferredSampleRateHz: 24_000,
      ...(alignment ? { alignment } : {}),
    },
    new AbortController().signal,
  )) {
    chunks.push(chunk);
  }
  provider.close();
  const pcm = Buffer.concat(chunks.map((chunk) => chunk.data));
  const timings: TextTiming[] = chunks.flatMap((chunk) => chunk.timings ?? []);
  const sent = (fake.requests[0]!.body as { text: string }).text;
  return { fake, chunks, pcm, timings, sent };
}

/** An SSE body cut into reads of `size` bytes, so events and CR LFs straddle reads. */
async function* body(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function read(text: string, events: unknown[], size: number) {
  const sse = events.map((event) => `event: message\r\ndata: ${JSON.stringify(event)}\r\n\r\n`);
  const chunks: SynthesisChunk[] = [];
  for await (const chunk of fishTimestampsPcm(body(sse.join(''), size), text, 8000, 'fishaudio')) {
    chunks.push(chunk);
  }
  return chunks;
}

describe('Fish Audio word alignment', () => {
  it('asks /v1/tts/stream/with-timestamp and maps the final snapshots’ segments onto the words of the text', async () => {
    const { fake, chunks, pcm, timings, sent } = await synthesize('word');
    expect(fake.requests[0]!.path).toBe('/v1/tts/stream/with-timestamp');
    expect(fake.requests[0]!.body).toMatchObject({ format: 'pcm', sample_rate: 24_000 });
    expect(sent).toBe(`[warm] ${TEXT}`);
    const vendor = fakeFishChunks(sent, pcm.byteLength / 2, 24_000).flatMap((c) => c.segments);
    const words = ['The', 'quick', 'brown', 'fox', 'jumps', 'Then', 'it', 'can’t', 'rest'];
    expect(vendor.map((segment) => segment.text)).toEqual(words.map((w) => w.replace('’', "'")));
    expect(timings.map((t) => TEXT.slice(t.textStart, t.textEnd))).toEqual(words);
    for (const [i, timing] of timings.entries()) {
      expect(timing.startS).toBeCloseTo(vendor[i]!.startS, 9);
      expect(timing.endS).toBeCloseTo(vendor[i]!.endS, 9);
    }
    // The first sentence's words come once the second sentence's snapshot arrives, with
    // audio still to follow; the last sentence's at the end.
    const firstTimed = chunks.findIndex((chunk) => chunk.timings !== undefined);
    expect(chunks[firstTimed]!.timings!.map((t) => TEXT.slice(t.textStart, t.textEnd))).toEqual(
      words.slice(0, 5),
    );
    expect(chunks.slice(firstTimed + 1).some((chunk) => chunk.data.byteLength > 0)).toBe(true);
  });

  it('yields the same audio as the plain route, and asks it when alignment is off', async () => {
    const aligned = await synthesize('word');
    const plain = await synthesize(undefined);
    expect(plain.fake.requests[0]!.path).toBe('/v1/tts');
    expect(plain.timings).toEqual([]);
    expect(aligned.pcm.equals(plain.pcm)).toBe(true);
  });

  it('reads snapshots: the latest of a chunk wins, offsets from audio_duration when Fish gives no chunk offset, a late revision ignored', async () => {
    const audio = Buffer.alloc(1600).toString('base64');
    const chunks = await read(
      'Hello there. Bye now.',
      [
        { audio_base64: audio, content: '', alignment: null },
        {
          audio_base64: audio,
          content: 'Hello there.',
          alignment: { segments: [{ text: 'Hello', start: 0, end: 0.05 }], audio_duration: 0.1 },
          chunk_seq: 0,
        },
        {
          audio_base64: '',
          content: 'Hello there.',
          alignment: {
            segments: [
              { text: 'Hello', start: 0, end: 0.1 },
              { text: 'there', start: 0.1, end: 0.2 },
            ],
            audio_duration: 0.25,
          },
          chunk_seq: 0,
        },
        {
          audio_base64: audio,
          content: 'Bye now.',
          alignment: { segments: [{ text: 'Bye', start: 0, end: 0.1 }], audio_duration: 0.2 },
          chunk_seq: 1,
        },
        {
          audio_base64: '',
          content: 'Hello there.',
          alignment: { segments: [{ text: 'Hello', start: 5, end: 6 }], audio_duration: 9 },
          chunk_seq: 0,
        },
        {
          audio_base64: audio,
          content: 'Bye now.',
          alignment: {
            segments: [
              { text: 'Bye', start: 0, end: 0.1 },
              { text: 'now', start: 0.1, end: 0.15 },
            ],
            audio_duration: 0.2,
          },
          chunk_seq: 1,
        },
      ],
      37,
    );
    const pcmBytes = chunks.reduce((sum, chunk) => sum + chunk.data.byteLength, 0);
    expect(pcmBytes).toBe(4 * 1600);
    const text = 'Hello there. Bye now.';
    const timings = chunks.flatMap((chunk) => chunk.timings ?? []);
    expect(timings.map((t) => [text.slice(t.textStart, t.textEnd), t.startS, t.endS])).toEqual([
      ['Hello', 0, 0.1],
      ['there', 0.1, 0.2],
      ['Bye', 0.25, 0.35],
      ['now', 0.35, 0.4],
    ]);
  });

  it('reads the older form without chunk_seq or offset: each alignment is a new chunk, after the earlier chunks’ audio_duration', async () => {
    const audio = Buffer.alloc(800).toString('base64');
    const text = 'One two. Three.';
    const chunks = await read(
      text,
      [
        {
          audio_base64: audio,
          content: 'One two.',
          alignment: {
            segments: [
              { text: 'One', start: 0, end: 0.1 },
              { text: 'two', start: 0.1, end: 0.2 },
            ],
            audio_duration: 0.5,
          },
        },
        { audio_base64: audio, content: 'One two.', alignment: null },
        {
          audio_base64: audio,
          content: 'Three.',
          alignment: {
            segments: [{ text: 'three', start: 0.125, end: 0.25 }],
            audio_duration: 0.5,
          },
        },
      ],
      64,
    );
    expect(chunks.reduce((sum, chunk) => sum + chunk.data.byteLength, 0)).toBe(3 * 800);
    const timings = chunks.flatMap((chunk) => chunk.timings ?? []);
    expect(timings.map((t) => [text.slice(t.textStart, t.textEnd), t.startS, t.endS])).toEqual([
      ['One', 0, 0.1],
      ['two', 0.1, 0.2],
      ['Three', 0.625, 0.75],
    ]);
  });
});
