import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { KOKORO_VOICES } from '../../../src/tts/providers/kokoro/index.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { openStream, streamRequest, streamUrl } from '../../helpers/stream.ts';
import { decodeDelivered } from '../../helpers/tts.ts';
import { startKokoro } from '../../unit/providers/kokoro/engine.ts';
import { FRAME_MS, PredictedWords } from '../../unit/providers/kokoro/predicted-words.ts';

const FORMATS = ['pcm_24000', 'pcm_44100', 'pcm_48000', 'aac_44100_128', 'opus_48000_64'];
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the warm sun.';
/** Three chunks at least (a short first chunk, then each sentence): two seams. */
const ALIGNED =
  'Bright morning light filled the quiet harbor, while seven small boats waited. Gentle waves rolled toward the sandy shore.';
const ALIGNED_WORDS = ALIGNED.replace(/[,.]/g, '').split(' ');

interface Timing {
  text: string;
  start_ms: number;
  end_ms: number;
}

// SQLite only: the neural engine does not touch the database, and every api started with
// neural voices loads its own ~550 MB model copy.
describe('neural native voices over HTTP (sqlite)', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  const voice = KOKORO_VOICES[0]!;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get('sqlite'));
    ws = await seedWorkspace(handle);
    server = await apis.start(database, {
      env: {
        TTS_RATE_LIMIT_PER_MINUTE: '0',
        NATIVE_NEURAL_VOICES: 'true',
        KOKORO_MAX_WAIT_MS: '60000',
      },
    });
  }, 60_000);

  const timed = (body: Record<string, unknown>) =>
    fetch(`${server.url}/v1/tts/with-timestamps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: voice.id, ...body }),
    });

  const tts = (body: unknown) =>
    fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('lists the neural voices after the lite ones, with the native formats', async () => {
    const response = await fetch(`${server.url}/v1/voices`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    const { voices } = (await response.json()) as {
      voices: { id: string; name: string; output_formats: string[]; capabilities: string[] }[];
    };
    const neural = voices.filter((entry) => entry.name.endsWith('neural)'));
    expect(neural.map((entry) => entry.id)).toEqual(KOKORO_VOICES.map((entry) => entry.id));
    for (const entry of neural) {
      expect(entry.output_formats).toEqual(FORMATS);
      expect(entry.capabilities).toEqual(['tts', 'word_alignment']);
      expect(JSON.stringify(entry)).not.toMatch(/kokoro|af_|bm_/i);
    }
  });

  it.each(FORMATS)(
    'delivers %s decodable at its rate, with speech of the right length',
    async (format) => {
      const response = await tts({ text: SENTENCE, voice_id: voice.id, output_format: format });
      expect(response.status).toBe(200);
      const decoded = await decodeDelivered(format, Buffer.from(await response.arrayBuffer()));
      expect(decoded.sampleRateHz).toBe(Number(/_(\d{5})/.exec(format)![1]));
      expect(decoded.channels).toBe(1);
      expect(decoded.rms).toBeGreaterThan(0.02);
      // 15 words at 130-220 words per minute.
      expect(decoded.durationMs).toBeGreaterThan(4000);
      expect(decoded.durationMs).toBeLessThan(7500);
    },
    120_000,
  );

  it('rejects pcm_16000 for a neural voice', async () => {
    const response = await tts({ text: 'Hi.', voice_id: voice.id, output_format: 'pcm_16000' });
    expect(response.status).toBe(400);
  });

  it('refuses character alignment for a neural voice, which times words only: 400 invalid_request', async () => {
    const response = await timed({ text: 'Hi.', output_format: 'pcm_24000', alignment: 'char' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'invalid_request',
      detail:
        'This voice cannot time its audio by char: it does not list char_alignment in its capabilities.',
    });
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    const { events } = await streamRequest(
      client,
      { voice_id: voice.id, output_format: 'pcm_24000', alignment: 'char' },
      ['Hi.'],
    );
    expect(events.map((event) => event.event)).toEqual(['error']);
    expect(events[0]).toMatchObject({ code: 'invalid_request', retryable: false });
  });

  describe('word timings from the durations the model predicts', () => {
    // The same model in this process, for the durations it predicts for each chunk.
    const predicted = new PredictedWords();
    let kokoro: ReturnType<typeof startKokoro>;
    let expectedMs: number[];

    beforeAll(async () => {
      kokoro = startKokoro({}, predicted.hooks);
      await kokoro.pool.ready();
      for await (const _ of kokoro.provider.synthesize(
        { text: ALIGNED, providerVoiceId: voice.providerVoiceId },
        new AbortController().signal,
      )) {
        // only the durations are wanted
      }
      expect(predicted.chunks).toBeGreaterThanOrEqual(3);
      expectedMs = predicted.startsMs();
      expect(expectedMs).toHaveLength(ALIGNED_WORDS.length);
    }, 120_000);

    afterAll(() => kokoro?.close());

    it.each(['pcm_24000', 'pcm_44100'])(
      'answers /v1/tts/with-timestamps in %s with each word within one model frame of its predicted start',
      async (format) => {
        const response = await timed({ text: ALIGNED, output_format: format, alignment: 'word' });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { audio: string; timings: Timing[] };
        expect(body.timings.map((t) => t.text)).toEqual(ALIGNED_WORDS);
        for (const [index, timing] of body.timings.entries()) {
          expect(Math.abs(timing.start_ms - expectedMs[index]!)).toBeLessThanOrEqual(FRAME_MS);
          expect(timing.end_ms).toBeGreaterThan(timing.start_ms);
        }
        const decoded = await decodeDelivered(format, Buffer.from(body.audio, 'base64'));
        expect(body.timings.at(-1)!.end_ms).toBeLessThanOrEqual(decoded.durationMs + 1);
      },
      120_000,
    );

    it('carries the words on the stream’s audio events with alignment "word" (pcm_48000)', async () => {
      const client = await openStream(streamUrl(server.url), {
        authorization: `Bearer ${ws.productionKey}`,
      });
      const { events } = await streamRequest(
        client,
        { voice_id: voice.id, output_format: 'pcm_48000', alignment: 'word' },
        [ALIGNED],
      );
      expect(events.at(-1)!.event).toBe('finish');
      const audio = events.filter((event) => event.event === 'audio');
      expect(audio.every((event) => Array.isArray(event.timings))).toBe(true);
      const timings = audio.flatMap((event) => event.timings as Timing[]);
      expect(timings.map((t) => t.text)).toEqual(ALIGNED_WORDS);
      for (const [index, timing] of timings.entries()) {
        expect(Math.abs(timing.start_ms - expectedMs[index]!)).toBeLessThanOrEqual(FRAME_MS);
      }
    }, 120_000);
  });
});
