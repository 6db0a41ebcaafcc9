import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { KOKORO_VOICES } from '../../../src/tts/providers/kokoro/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { openStream, streamRequest, streamUrl } from '../../helpers/stream.ts';
import { decodeDelivered } from '../../helpers/tts.ts';

const FORMATS = ['pcm_24000', 'pcm_44100', 'pcm_48000', 'aac_44100_128', 'opus_48000_64'];
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the warm sun.';

// SQLite only: the neural engine does not touch the database, and every api started with
// neural voices loads its own ~550 MB model copy.
describe('neural native voices over HTTP (sqlite)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  const voice = KOKORO_VOICES[0]!;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    handle = await openTestDatabase(database);
    ws = await seedWorkspace(handle);
    server = await startServer({
      database,
      env: {
        TTS_RATE_LIMIT_PER_MINUTE: '0',
        NATIVE_NEURAL_VOICES: 'true',
        KOKORO_MAX_WAIT_MS: '60000',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await handle?.close();
    await database?.drop();
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
      expect(entry.capabilities).toEqual(['tts']);
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

  it('refuses word and character alignment for a neural voice, which cannot time its audio: 400 invalid_request', async () => {
    for (const alignment of ['word', 'char']) {
      const response = await fetch(`${server.url}/v1/tts/with-timestamps`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ws.productionKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          text: 'Hi.',
          voice_id: voice.id,
          output_format: 'pcm_24000',
          alignment,
        }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'invalid_request',
        detail: `This voice cannot time its audio by ${alignment}: it does not list ${alignment}_alignment in its capabilities.`,
      });
      const client = await openStream(streamUrl(server.url), {
        authorization: `Bearer ${ws.productionKey}`,
      });
      const { events } = await streamRequest(
        client,
        { voice_id: voice.id, output_format: 'pcm_24000', alignment },
        ['Hi.'],
      );
      expect(events.map((event) => event.event)).toEqual(['error']);
      expect(events[0]).toMatchObject({ code: 'invalid_request', retryable: false });
    }
  });
});
