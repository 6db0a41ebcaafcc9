// Realtime transcription over a real WebSocket, through the OpenAI-compatible engine (the
// fake of `/v1/audio/transcriptions`), on both databases: utterances found by the server's
// voice activity, push-to-talk flushes, base64 audio, usage and the exact charge, credit
// that runs out, bad frames and the idle timeout.
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
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
import type { StreamClient } from '../../helpers/stream.ts';
import {
  expectedMillicredits,
  finals,
  openTranscription,
  pcmMs,
  sendAudio,
  silence,
  speech,
} from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';
const PRICE = 6;
const RATE = 24_000;
const IDLE_MS = 3000;
/** Longer than any other test's session here. */
const MAX_SESSION_MS = 8000;

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

describeEachDialect('realtime transcription (OpenAI-compatible engine) on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1000 });
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: fake.url,
          STT_OPENAI_API_KEY: 'sk-test',
          PRICE_STT_CREDITS_PER_MINUTE: String(PRICE),
          TRANSCRIPTION_IDLE_TIMEOUT_MS: String(IDLE_MS),
          TRANSCRIPTION_MAX_SESSION_MS: String(MAX_SESSION_MS),
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  /** The balance once no session of the workspace is active (rows close after the socket). */
  const balance = async (workspaceId: string) => {
    await vi.waitFor(
      async () => {
        const active = await handle.db
          .selectFrom('transcription_sessions')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where('status', '=', 'active')
          .execute();
        expect(active).toEqual([]);
      },
      { timeout: 30_000, interval: 50 },
    );
    return Number(
      (
        await handle.db
          .selectFrom('workspaces')
          .select('credit_balance_millicredits')
          .where('id', '=', workspaceId)
          .executeTakeFirstOrThrow()
      ).credit_balance_millicredits,
    );
  };

  const start = (client: StreamClient, extra: Record<string, unknown> = {}) =>
    client.send({ event: 'start', audio_format: 'pcm_24000', language: 'en-US', ...extra });

  it('finds two utterances by voice activity and transcribes each exactly', async () => {
    const first = await speech(FIRST, RATE);
    const second = await speech(SECOND, RATE);
    const audio = Buffer.concat([first, silence(1200, RATE), second, silence(1000, RATE)]);
    fake.say(FIRST);
    fake.say(SECOND);
    const before = await balance(ws.workspaceId);
    const requestsBefore = fake.requests.length;
    const client = await openTranscription(server.url, ws.productionKey);
    start(client, { partner_session_id: 'call-42' });
    sendAudio(client, audio, RATE);
    client.send({ event: 'stop' });
    const { code } = await client.closed;
    expect(code).toBe(1000);
    const events = client.events;
    const sessionId = events[0]?.session_id as string;
    expect(events[0]).toEqual({
      event: 'started',
      session_id: expect.any(String),
      audio_format: 'pcm_24000',
      language: 'en-US',
      interim_results: true,
      endpointing: 'vad',
    });
    const heard = finals(events);
    expect(heard.map((e) => [e.segment_id, e.text, e.language])).toEqual([
      [1, FIRST, 'en'],
      [2, SECOND, 'en'],
    ]);
    const [one, two] = heard.map((e) => ({
      start_ms: e.start_ms as number,
      end_ms: e.end_ms as number,
    })) as [{ start_ms: number; end_ms: number }, { start_ms: number; end_ms: number }];
    expect(one.start_ms).toBeLessThan(one.end_ms);
    expect(one.end_ms).toBeLessThanOrEqual(two.start_ms);
    expect(two.start_ms).toBeGreaterThanOrEqual(pcmMs(first, RATE));
    expect(two.end_ms).toBeLessThanOrEqual(pcmMs(audio, RATE));
    // Only speech (with its lead-in) reached the engine, one request per utterance, in English.
    expect(fake.requests.slice(requestsBefore).map((r) => [r.language, r.sampleRateHz])).toEqual([
      ['en', 16_000],
      ['en', 16_000],
    ]);
    const audioMs = pcmMs(audio, RATE);
    const charge = expectedMillicredits(audioMs, PRICE);
    expect(events.slice(-2)).toEqual([
      { event: 'usage', session_id: sessionId, usage: { audio_ms: audioMs } },
      {
        event: 'finish',
        session_id: sessionId,
        reason: 'stop',
        cost: {
          credits: charge / 1000,
          amount: charge / 1e6,
          currency: 'USD',
          pass_through: false,
        },
        audit_id: expect.stringMatching(/^aud_/),
      },
    ]);
    expect(before - (await balance(ws.workspaceId))).toBe(charge);
    const read = await fetch(`${server.url}/v1/realtime-transcription-sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      session_id: sessionId,
      status: 'ended',
      error_code: null,
      audio_format: 'pcm_24000',
      language: 'en-US',
      partner_session_id: 'call-42',
      audio_ms: audioMs,
      cost: { credits: charge / 1000 },
      transcript: `${FIRST} ${SECOND}`,
      segments: [
        { segment_id: 1, text: FIRST, start_ms: one.start_ms, end_ms: one.end_ms, language: 'en' },
        { segment_id: 2, text: SECOND, start_ms: two.start_ms, end_ms: two.end_ms, language: 'en' },
      ],
    });
  });

  it('finalizes at each client flush with manual endpointing, as push-to-talk does', async () => {
    const first = await speech(FIRST, 16_000);
    fake.say(FIRST);
    const requestsBefore = fake.requests.length;
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_16000', endpointing: 'manual' });
    expect(await client.waitFor((e) => e.event === 'started')).toMatchObject({
      language: null,
      endpointing: 'manual',
    });
    // Base64 `audio` events carry the same audio as binary frames.
    for (let offset = 0; offset < first.byteLength; offset += 16_000) {
      const piece = first.subarray(offset, offset + 16_000).toString('base64');
      client.send({ event: 'audio', audio: piece });
    }
    client.send({ event: 'flush' });
    const final = await client.waitFor((e) => e.event === 'transcript');
    expect(final).toMatchObject({ segment_id: 1, text: FIRST, final: true, start_ms: 0 });
    expect(final.end_ms).toBe(pcmMs(first, 16_000));
    await client.waitFor((e) => e.event === 'flushed');
    // A flush with nothing new is answered too, and transcribes nothing.
    client.send({ event: 'flush' });
    await client.waitFor((e) => e.event === 'flushed');
    client.send({ event: 'stop' });
    await client.closed;
    expect(client.events.map((e) => e.event)).toEqual([
      'started',
      'transcript',
      'flushed',
      'flushed',
      'usage',
      'finish',
    ]);
    expect(fake.requests.length - requestsBefore).toBe(1);
  });

  it('transcribes and stores what was said when the client leaves without stop', async () => {
    const first = await speech(FIRST, RATE);
    fake.say(FIRST);
    const client = await openTranscription(server.url, ws.productionKey);
    start(client);
    const started = await client.waitFor((e) => e.event === 'started');
    sendAudio(client, Buffer.concat([first, silence(300, RATE)]), RATE);
    client.socket.close();
    await client.closed;
    const url = `${server.url}/v1/realtime-transcription-sessions/${started.session_id}`;
    let body: Record<string, unknown> = {};
    await vi.waitFor(
      async () => {
        const read = await fetch(url, { headers: { authorization: `Bearer ${ws.productionKey}` } });
        body = (await read.json()) as Record<string, unknown>;
        expect(body.status).toBe('ended');
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(body).toMatchObject({ transcript: FIRST, audio_ms: pcmMs(first, RATE) + 300 });
  });

  it('refuses a session when the balance cannot cover its start (insufficient_credit)', async () => {
    const poor = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 0.5 });
    const client = await openTranscription(server.url, poor.productionKey);
    start(client);
    const { code } = await client.closed;
    expect(code).toBe(1000);
    expect(client.events).toEqual([
      {
        event: 'error',
        request_id: expect.any(String),
        session_id: expect.any(String),
        code: 'insufficient_credit',
        retryable: false,
        detail: expect.any(String),
      },
    ]);
    expect(await balance(poor.workspaceId)).toBe(500);
  });

  it('ends the session when the credit runs out, after the finals it covered', async () => {
    // 1.5 credits: the first 10 s of audio (1 credit) are covered, the next 10 s are not.
    const poor = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1.5 });
    const first = await speech(FIRST, RATE);
    fake.say(FIRST);
    const client = await openTranscription(server.url, poor.productionKey);
    start(client);
    const audio = Buffer.concat([first, silence(12_000 - pcmMs(first, RATE), RATE)]);
    sendAudio(client, audio, RATE);
    await client.closed;
    const last = client.events.at(-1);
    expect(last).toMatchObject({ event: 'error', code: 'insufficient_credit', retryable: false });
    expect(finals(client.events).map((e) => e.text)).toEqual([FIRST]);
    // Charged exactly the 10 s covered: 1,000 millicredits of the 1,500.
    expect(await balance(poor.workspaceId)).toBe(500);
    const read = await fetch(
      `${server.url}/v1/realtime-transcription-sessions/${last?.session_id}`,
      { headers: { authorization: `Bearer ${poor.productionKey}` } },
    );
    expect(await read.json()).toMatchObject({
      status: 'failed',
      error_code: 'insufficient_credit',
      audio_ms: 10_000,
      cost: { credits: 1 },
    });
  });

  it('closes with 1008 for invalid JSON and 1009 for frames over 64 KiB', async () => {
    const bad = await openTranscription(server.url, ws.productionKey);
    bad.send('{not json');
    expect((await bad.closed).code).toBe(1008);
    const big = await openTranscription(server.url, ws.productionKey);
    start(big);
    await big.waitFor((e) => e.event === 'started');
    big.socket.send(Buffer.alloc(64 * 1024 + 2));
    expect((await big.closed).code).toBe(1009);
    expect(big.events.map((e) => e.event)).toEqual(['started']);
  });

  it.each([
    ['audio before start', [{ event: 'flush' }]],
    ['an unknown event', [{ event: 'text', text: 'hi' }]],
    [
      'a second start',
      [
        { event: 'start', audio_format: 'pcm_16000' },
        { event: 'start', audio_format: 'pcm_16000' },
      ],
    ],
    ['an unsupported format', [{ event: 'start', audio_format: 'pcm_44100' }]],
    ['a malformed language', [{ event: 'start', audio_format: 'pcm_16000', language: 'english!' }]],
    ['a server-owned field', [{ event: 'start', audio_format: 'pcm_16000', session_id: 'x' }]],
    [
      'audio that is not base64',
      [
        { event: 'start', audio_format: 'pcm_16000' },
        { event: 'audio', audio: '%%%' },
      ],
    ],
  ])('answers %s with invalid_request, then closes normally', async (_name, frames) => {
    const client = await openTranscription(server.url, ws.productionKey);
    for (const frame of frames) client.send(frame);
    expect((await client.closed).code).toBe(1000);
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'invalid_request',
      retryable: false,
    });
  });

  it.each([
    ['a flush', (client: StreamClient) => client.send({ event: 'flush' })],
    ['a second stop', (client: StreamClient) => client.send({ event: 'stop' })],
    [
      'an audio event',
      (client: StreamClient) =>
        client.send({ event: 'audio', audio: silence(20, 16_000).toString('base64') }),
    ],
    ['a binary audio frame', (client: StreamClient) => client.socket.send(silence(20, 16_000))],
  ])('answers %s after stop with invalid_request instead of finish', async (_name, late) => {
    // Speech before the stop: the ending waits for its transcription, so the late frame
    // (sent right after the stop) surely arrives while the session is still ending.
    const first = await speech(FIRST, RATE);
    fake.say(FIRST);
    const client = await openTranscription(server.url, ws.productionKey);
    start(client);
    await client.waitFor((e) => e.event === 'started');
    sendAudio(client, first, RATE);
    client.send({ event: 'stop' });
    late(client);
    expect((await client.closed).code).toBe(1000);
    expect(client.events.map((e) => e.event)).not.toContain('finish');
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'invalid_request',
      retryable: false,
      detail: 'No event may follow stop: one WebSocket carries one session.',
    });
  });

  it('ends a session without client frames for the idle timeout', async () => {
    const client = await openTranscription(server.url, ws.productionKey);
    start(client);
    await client.waitFor((e) => e.event === 'started');
    expect((await client.closed).code).toBe(1000);
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'invalid_request',
      detail: `No client frame for ${IDLE_MS / 1000} seconds.`,
    });
  });

  it('ends a session at its length limit, after the finals of the audio received', async () => {
    const first = await speech(FIRST, RATE);
    fake.say(FIRST);
    const client = await openTranscription(server.url, ws.productionKey);
    start(client);
    await client.waitFor((e) => e.event === 'started');
    sendAudio(client, Buffer.concat([first, silence(600, RATE)]), RATE);
    // Silence keeps the session from idling out until the limit ends it.
    const keepAlive = setInterval(() => sendAudio(client, silence(100, RATE), RATE), 500);
    await client.closed.finally(() => clearInterval(keepAlive));
    expect(finals(client.events).map((e) => e.text)).toEqual([FIRST]);
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'invalid_request',
      detail: 'The session reached its limit of 8 seconds.',
    });
  });

  it('reports an engine failure as provider_error and charges nothing', async () => {
    const first = await speech(FIRST, 16_000);
    fake.failNext({ kind: 'status', status: 400 });
    const before = await balance(ws.workspaceId);
    const client = await openTranscription(server.url, ws.productionKey);
    client.send({ event: 'start', audio_format: 'pcm_16000', endpointing: 'manual' });
    sendAudio(client, first, 16_000);
    client.send({ event: 'flush' });
    await client.closed;
    expect(client.events.at(-1)).toMatchObject({
      event: 'error',
      code: 'provider_error',
      retryable: false,
    });
    expect(await balance(ws.workspaceId)).toBe(before);
  });
});
