// Realtime transcription through the Deepgram engine (the fake of Deepgram's live WebSocket)
// on both databases: interim results then the final of the same segment, flush as
// `Finalize`, stop as `CloseStream`, the exact charge, and the engine's failures.
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { type FakeDeepgram, startFakeDeepgram } from '../../fakes/deepgram.ts';
import {
  afterAll,
  beforeAll,
  beforeEach,
  describeEachDialect,
  expect,
  it,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  expectedMillicredits,
  finals,
  openTranscription,
  pcmMs,
  sendAudio,
  speech,
} from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';
const PRICE = 6;
const RATE = 48_000;

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

describeEachDialect('realtime transcription (Deepgram engine) on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeDeepgram;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeDeepgram({ apiKey: 'dg-test', interimEveryMs: 500 });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1000 });
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'deepgram',
          DEEPGRAM_API_KEY: 'dg-test',
          DEEPGRAM_BASE_URL: fake.url,
          PRICE_STT_CREDITS_PER_MINUTE: String(PRICE),
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  it('sends interim results, then the final of the same segment at each flush and at stop', async () => {
    const first = await speech(FIRST, RATE);
    const second = await speech(SECOND, RATE);
    fake.say(FIRST);
    fake.say(SECOND);
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_48000', language: 'en-GB' });
    expect(await client.waitFor((e) => e.event === 'started')).toMatchObject({
      endpointing: 'engine',
      interim_results: true,
    });
    sendAudio(client, first, RATE);
    client.send({ event: 'flush' });
    await client.waitFor((e) => e.event === 'flushed');
    sendAudio(client, second, RATE);
    client.send({ event: 'stop' });
    expect((await client.closed).code).toBe(1000);
    const connection = fake.connections.at(-1);
    expect(connection?.query).toMatchObject({
      encoding: 'linear16',
      sample_rate: '16000',
      language: 'en',
      interim_results: 'true',
    });
    expect(connection?.controlMessages).toEqual(['Finalize', 'CloseStream']);

    const transcripts = client.events.filter((e) => e.event === 'transcript');
    const firstSegment = transcripts.filter((e) => e.segment_id === 1);
    // Interims reveal the words one at a time, never the whole text; the final closes it.
    expect(firstSegment.length).toBeGreaterThan(2);
    for (const interim of firstSegment.slice(0, -1)) {
      expect(interim.final).toBe(false);
      expect(FIRST.startsWith(interim.text as string)).toBe(true);
    }
    expect(firstSegment.at(-1)).toMatchObject({ final: true, text: FIRST, start_ms: 0 });
    expect(finals(client.events).map((e) => [e.segment_id, e.text])).toEqual([
      [1, FIRST],
      [2, SECOND],
    ]);
    // Finals of the first segment come before the flush is answered.
    const order = client.events.map((e) =>
      e.event === 'transcript' ? `${e.segment_id}${e.final ? 'F' : 'i'}` : e.event,
    );
    expect(order.indexOf('flushed')).toBe(order.indexOf('1F') + 1);
    expect(finals(client.events)[1]?.start_ms).toBe(pcmMs(first, RATE));

    const audioMs = pcmMs(first, RATE) + pcmMs(second, RATE);
    const charge = expectedMillicredits(audioMs, PRICE);
    expect(client.events.at(-2)).toMatchObject({ event: 'usage', usage: { audio_ms: audioMs } });
    expect(client.events.at(-1)).toMatchObject({
      event: 'finish',
      cost: { credits: charge / 1000, currency: 'USD', pass_through: false },
    });
  });

  it('leaves interim results out when the client asks', async () => {
    const first = await speech(FIRST, RATE);
    fake.say(FIRST);
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_48000', interim_results: false });
    sendAudio(client, first, RATE);
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.map((e) => e.event)).toEqual(['started', 'transcript', 'usage', 'finish']);
    expect(client.events[1]).toMatchObject({ final: true, text: FIRST });
  });

  it('reports a refused engine credential as provider_error, uncharged', async () => {
    fake.failNext({ kind: 'handshake_status', status: 401 });
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_48000' });
    sendAudio(client, await speech(FIRST, RATE), RATE);
    await client.closed;
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'provider_error',
      retryable: false,
    });
    const sessionId = client.events.at(-1)?.session_id as string;
    await vi.waitFor(
      async () => {
        const row = await handle.db
          .selectFrom('transcription_sessions')
          .select(['status', 'error_code', 'charged_millicredits', 'reserved_millicredits'])
          .where('id', '=', sessionId)
          .executeTakeFirstOrThrow();
        expect(row).toMatchObject({
          status: 'failed',
          error_code: 'provider_error',
          charged_millicredits: 0,
          reserved_millicredits: 0,
        });
      },
      { timeout: 30_000, interval: 50 },
    );
  });

  it('reports a dropped engine connection as retryable', async () => {
    fake.failNext({ kind: 'drop_after_bytes', bytes: 32_000 });
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_48000' });
    sendAudio(client, await speech(FIRST, RATE), RATE);
    await client.closed;
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'provider_error',
      retryable: true,
    });
  });
});
