import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { EngineHelper } from '../../../src/tts/providers/native/helper/engine-helper.ts';
import { defaultEngineHelperPath, NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { wordsPerMinute } from '../../../src/tts/providers/native/speech-rate.ts';
import { beforeAll, describe, dialectSuite, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  audioOf,
  openStream,
  type ServerEvent,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { decodeDelivered } from '../../helpers/tts.ts';
import { budget } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!;
const SENTENCE = 'Bright morning light filled the quiet harbor, while seven small boats waited.';
const WORDS = SENTENCE.replace(/[,.]/g, '').split(' ');
/** The spec's rates for native voices (it refuses pcm_16000), and the two codecs. */
const FORMATS = ['pcm_24000', 'pcm_44100', 'pcm_48000', 'opus_48000_64', 'aac_44100_128'];

interface Timing {
  text: string;
  start_ms: number;
  end_ms: number;
}

vi.setConfig({ testTimeout: budget({ extraMs: 120_000 }) });

/**
 * espeak-ng's own word events for `text` at its own rate (no resampling), from the engine
 * the service runs: the first event of each word, in ms of the utterance.
 */
async function espeakWordStartsMs(text: string): Promise<number[]> {
  const helper = new EngineHelper(defaultEngineHelperPath()!);
  const starts = new Map<number, number>();
  try {
    const utterance = {
      voice: VOICE.providerVoiceId,
      wordsPerMinute: wordsPerMinute(1),
      pitch: 50,
      text,
      marks: true,
    };
    for await (const chunk of helper.synthesize(utterance, new AbortController().signal)) {
      for (const mark of chunk.marks ?? []) {
        if (mark.kind === 'word' && !starts.has(mark.textPosition)) {
          starts.set(mark.textPosition, mark.timeS * 1000);
        }
      }
    }
  } finally {
    helper.kill();
    await helper.exited;
  }
  return [...starts.values()];
}

function timingsOf(events: ServerEvent[]): Timing[] {
  return events.filter((e) => e.event === 'audio').flatMap((e) => e.timings as Timing[]);
}

describe('word alignment of the native voices', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      server = await apis.start(database, { env: { TTS_RATE_LIMIT_PER_MINUTE: '0' } });
      ws = await seedWorkspace(handle);
    },
    budget({ servers: 1 }),
  );

  const auth = () => ({ authorization: `Bearer ${ws.productionKey}` });

  const stream = async (start: Record<string, unknown>, texts: (string | { flush: true })[]) => {
    const client = await openStream(streamUrl(server.url), auth());
    return streamRequest(client, { voice_id: VOICE.id, ...start }, texts);
  };

  const timed = (body: Record<string, unknown>) =>
    fetch(`${server.url}/v1/tts/with-timestamps`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: VOICE.id, ...body }),
    });

  it('lists word alignment, not character alignment, in the native voices’ capabilities', async () => {
    const response = await fetch(`${server.url}/v1/voices`, { headers: auth() });
    const { voices } = (await response.json()) as {
      voices: { id: string; capabilities: string[] }[];
    };
    expect(voices.find((v) => v.id === VOICE.id)!.capabilities).toEqual(['tts', 'word_alignment']);
  });

  it.each(FORMATS)(
    'times each streamed word within 10 ms of espeak-ng’s own events in %s',
    async (format) => {
      const expected = await espeakWordStartsMs(SENTENCE);
      const { events } = await stream({ output_format: format, alignment: 'word' }, [SENTENCE]);
      expect(events.at(-1)!.event).toBe('finish');
      const audio = events.filter((e) => e.event === 'audio');
      // Every audio event says which words its audio reaches, none twice.
      expect(audio.every((e) => Array.isArray(e.timings))).toBe(true);
      const timings = timingsOf(events);
      expect(timings.map((t) => t.text)).toEqual(WORDS);
      expect(expected).toHaveLength(WORDS.length);
      for (const [index, timing] of timings.entries()) {
        expect(Math.abs(timing.start_ms - expected[index]!)).toBeLessThanOrEqual(10);
        expect(timing.end_ms).toBeGreaterThan(timing.start_ms);
        // A word ends where the next one starts, or earlier where its clause ends.
        if (index > 0) expect(timing.start_ms).toBeGreaterThanOrEqual(timings[index - 1]!.end_ms);
      }
      const decoded = await decodeDelivered(format, audioOf(events));
      expect(timings.at(-1)!.end_ms).toBeLessThanOrEqual(decoded.durationMs + 1);
    },
  );

  it.each(FORMATS)(
    'answers one-shot JSON with the audio and word timings within 10 ms in %s',
    async (format) => {
      const expected = await espeakWordStartsMs(SENTENCE);
      const response = await timed({ text: SENTENCE, output_format: format, alignment: 'word' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        format: string;
        audio: string;
        duration_ms: number;
        alignment: string;
        timings: Timing[];
      };
      expect(body.format).toBe(format);
      expect(body.alignment).toBe('word');
      expect(body.timings.map((t) => t.text)).toEqual(WORDS);
      for (const [index, timing] of body.timings.entries()) {
        expect(Math.abs(timing.start_ms - expected[index]!)).toBeLessThanOrEqual(10);
      }
      const decoded = await decodeDelivered(format, Buffer.from(body.audio, 'base64'));
      expect(decoded.durationMs).toBeGreaterThan(body.timings.at(-1)!.end_ms - 30);
    },
  );

  it('times words across text pushes and flushes as the segments spoken alone, one after another', async () => {
    const segments = ['The first part is short,', 'and the second part follows it.', 'Done.'];
    // Each segment alone, one-shot: its timings and its audio's length.
    const alone: { timings: Timing[]; durationMs: number }[] = [];
    for (const text of segments) {
      const response = await timed({ text, output_format: 'pcm_24000' });
      const body = (await response.json()) as { audio: string; timings: Timing[] };
      alone.push({
        timings: body.timings,
        durationMs: (Buffer.from(body.audio, 'base64').byteLength / 2 / 24000) * 1000,
      });
    }
    // The first segment arrives in two text events, each segment ends with a flush.
    const { events } = await stream({ output_format: 'pcm_24000', alignment: 'word' }, [
      'The first part ',
      'is short,',
      { flush: true },
      segments[1]!,
      { flush: true },
      segments[2]!,
    ]);
    expect(events.at(-1)!.event).toBe('finish');
    const timings = timingsOf(events);
    let offsetMs = 0;
    const expected: Timing[] = [];
    for (const segment of alone) {
      for (const t of segment.timings) {
        expected.push({
          text: t.text,
          start_ms: t.start_ms + offsetMs,
          end_ms: t.end_ms + offsetMs,
        });
      }
      offsetMs += segment.durationMs;
    }
    expect(timings.map((t) => t.text)).toEqual(expected.map((t) => t.text));
    for (const [index, timing] of timings.entries()) {
      expect(Math.abs(timing.start_ms - expected[index]!.start_ms)).toBeLessThanOrEqual(1);
      expect(Math.abs(timing.end_ms - expected[index]!.end_ms)).toBeLessThanOrEqual(1);
      if (index > 0) expect(timing.start_ms).toBeGreaterThanOrEqual(timings[index - 1]!.end_ms);
    }
    // The audio of the stream is the segments' audio back to back.
    expect((audioOf(events).byteLength / 2 / 24000) * 1000).toBeCloseTo(offsetMs, 0);
  });

  it('sends audio events without timings when alignment is not asked for', async () => {
    const { events } = await stream({ output_format: 'pcm_24000' }, ['Nothing new here.']);
    const audio = events.filter((e) => e.event === 'audio');
    expect(audio.length).toBeGreaterThan(0);
    expect(audio.every((e) => !('timings' in e))).toBe(true);
  });

  it('refuses character alignment on a voice that only aligns words: 400 invalid_request', async () => {
    const response = await timed({ text: 'Hello.', output_format: 'pcm_24000', alignment: 'char' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_request');
    const { events } = await stream({ output_format: 'pcm_24000', alignment: 'char' }, ['Hello.']);
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]!.code).toBe('invalid_request');
  });

  it('refuses alignment on the raw-audio route, which has no room for timings', async () => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        voice_id: VOICE.id,
        text: 'Hello.',
        output_format: 'pcm_24000',
        alignment: 'word',
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_request');
  });
});
