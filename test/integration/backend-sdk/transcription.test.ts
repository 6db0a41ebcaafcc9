// The server SDK's realtime transcription against the real api (its engine the fake of an
// OpenAI-compatible `/v1/audio/transcriptions`): `for await` over transcripts with audio
// from an iterable, a session driven by hand with flushes that resolve at `flushed`, a
// token, session reads page by page, and failures as typed errors. SQLite: the sessions'
// storage is tested on both databases by test/integration/transcription/.
import {
  AwpClient,
  CapabilityDisabledError,
  InsufficientCreditError,
  InvalidRequestError,
  type Transcript,
  type TranscriptionStream,
  UnauthorizedError,
} from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../../fakes/openai-transcriptions.ts';
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  dialectSuite,
  expect,
  it,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { pcmMs, silence, speech } from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';

async function collect(stream: TranscriptionStream): Promise<Transcript[]> {
  const transcripts: Transcript[] = [];
  for await (const transcript of stream) transcripts.push(transcript);
  return transcripts;
}

describe('server SDK realtime transcription', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;
  let client: AwpClient;

  beforeAll(
    async ({ databases, apis }) => {
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      ({ database, handle } = await databases.get('sqlite'));
      ws = await seedWorkspace(handle, { capabilities: ['transcription'] });
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: fake.url,
          STT_OPENAI_API_KEY: 'sk-test',
          PRICE_STT_CREDITS_PER_MINUTE: '6',
        },
      });
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await fake?.close();
  });

  beforeEach(() => fake.reset());

  it('transcribes audio from an iterable, with the result and the stored session', async () => {
    const first = await speech(FIRST, 16_000);
    const second = await speech(SECOND, 16_000);
    const audio = [first, silence(1200, 16_000), second, silence(1000, 16_000)];
    fake.say(FIRST);
    fake.say(SECOND);
    const stream = client.transcription.stream({
      audio_format: 'pcm_16000',
      language: 'en',
      partner_session_id: 'sdk-1',
      audio,
    });
    const transcripts = await collect(stream);
    const result = await stream.result;
    expect(await stream.started).toEqual({
      sessionId: result.sessionId,
      audioFormat: 'pcm_16000',
      language: 'en',
      interimResults: true,
      endpointing: 'vad',
    });
    expect(transcripts.map((t) => [t.segmentId, t.text, t.final, t.language])).toEqual([
      [1, FIRST, true, 'en'],
      [2, SECOND, true, 'en'],
    ]);
    expect(stream.sessionId).toBe(result.sessionId);
    const audioMs = audio.reduce((sum, part) => sum + pcmMs(part, 16_000), 0);
    expect(result).toEqual({
      sessionId: expect.any(String),
      auditId: expect.stringMatching(/^aud_/),
      audioMs,
      cost: {
        credits: Math.ceil(audioMs / 10) / 1000,
        amount: Math.ceil(audioMs / 10) / 1e6,
        currency: 'USD',
        pass_through: false,
      },
    });
    const stored = await client.transcription.sessions.get(result.sessionId);
    expect(stored).toMatchObject({
      status: 'ended',
      partner_session_id: 'sdk-1',
      transcript: `${FIRST} ${SECOND}`,
      audio_ms: audioMs,
    });
    expect(stored.segments.map((s) => [s.start_ms, s.end_ms])).toEqual(
      transcripts.map((t) => [t.startMs, t.endMs]),
    );
  });

  it('drives a push-to-talk session by hand: flush resolves once its final is out', async () => {
    const first = await speech(FIRST, 16_000);
    const second = await speech(SECOND, 16_000);
    fake.say(FIRST);
    fake.say(SECOND);
    const stream = client.transcription.stream({
      audio_format: 'pcm_16000',
      endpointing: 'manual',
      interim_results: false,
    });
    const heard: string[] = [];
    const reading = (async () => {
      for await (const t of stream) heard.push(t.text);
    })();
    await stream.sendAudio(first);
    await stream.flush();
    // The transcript event precedes `flushed` on the wire: the loop has it by now.
    await vi.waitFor(() => expect(heard).toEqual([FIRST]), { timeout: 20_000 });
    await stream.sendAudio(second);
    await stream.flush();
    await stream.end();
    await reading;
    expect(heard).toEqual([FIRST, SECOND]);
    expect((await stream.result).audioMs).toBe(pcmMs(first, 16_000) + pcmMs(second, 16_000));
  });

  it('connects with a minted token, without the key', async () => {
    const minted = await client.tokens.createTranscriptionToken();
    expect(minted.websocket_url).toMatch(/\/v1\/realtime-transcription$/);
    expect((await client.transcription.createToken()).token).not.toBe(minted.token);
    const browserLike = new AwpClient({ apiKey: 'awp_unused', baseUrl: server.url });
    const stream = browserLike.transcription.stream({
      audio_format: 'pcm_16000',
      transcriptionToken: minted.token,
      audio: [],
    });
    expect(await collect(stream)).toEqual([]);
    expect((await stream.result).audioMs).toBe(0);
  });

  it('lists sessions page by page, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const stream = client.transcription.stream({ audio_format: 'pcm_24000', audio: [] });
      await collect(stream);
      ids.push((await stream.result).sessionId);
    }
    const page = await client.transcription.sessions.list({ limit: 2 });
    expect(page.sessions.map((s) => s.session_id)).toEqual([ids[2], ids[1]]);
    const all = [];
    for await (const session of client.transcription.sessions.listAll({ limit: 2 })) {
      all.push(session.session_id);
    }
    expect(all.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it('throws the typed error of a refused handshake, a bad event and credit', async () => {
    const wrong = new AwpClient({ apiKey: `awp_${'x'.repeat(40)}`, baseUrl: server.url });
    const refused = wrong.transcription.stream({ audio_format: 'pcm_16000', audio: [] });
    await expect(collect(refused)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(refused.started).rejects.toBeInstanceOf(UnauthorizedError);

    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const noProduct = new AwpClient({ apiKey: ttsOnly.productionKey, baseUrl: server.url });
    await expect(
      collect(noProduct.transcription.stream({ audio_format: 'pcm_16000', audio: [] })),
    ).rejects.toBeInstanceOf(CapabilityDisabledError);

    const bad = client.transcription.stream({ audio_format: 'pcm_16000', language: '!!' });
    const error = await collect(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, retryable: false });

    const poor = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 0 });
    const broke = new AwpClient({ apiKey: poor.productionKey, baseUrl: server.url });
    const stream = broke.transcription.stream({ audio_format: 'pcm_16000' });
    await expect(collect(stream)).rejects.toMatchObject({
      constructor: InsufficientCreditError,
      status: 402,
    });
  });
});
