// The client SDK's TranscriptionClient in Chromium against the real api: a page loads the
// built browser bundle, its backend mints tokens with the server library, and Chromium's
// fake microphone plays espeak-ng speech. The api transcribes through the OpenAI-compatible
// fake (finals only, utterances found by the api's voice activity).
// Covered: exact finals in order, stop() with the usage and cost the api recorded, the
// microphone released, flush() with manual endpointing, an app's MediaStream, expired,
// reused and refused tokens, and an api error event.

import type { Page } from 'playwright-core';
import { encodeWav } from '../../../media/wav.ts';
import { StreamTokens } from '../../../src/auth/stream-tokens.ts';
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
} from '../../fixtures/index.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { expectedMillicredits, pcmMs, silence, speech } from '../../helpers/transcription.ts';
import { budget } from '../../helpers/wait.ts';
import {
  openTranscriptionPage,
  type RecordedEvent,
  startTranscriptionApp,
  type TranscriptionApp,
} from './harness/transcription-page.ts';

const FIRST = 'What is the weather like today in Paris?';
const SECOND = 'Turn off the lights in the kitchen.';
const PRICE = 6;
const SECRET = 'transcription-client-test-secret-0123456789';
const MIC_RATE = 48_000;
const WAIT_MS = 30_000;

describe('TranscriptionClient in Chromium (api with the OpenAI-compatible engine)', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;
  let fake: FakeTranscriptions;
  let ws: SeededWorkspace;
  let poor: SeededWorkspace;
  let app: TranscriptionApp;
  let browser: TestBrowser;
  let page: Page;
  let first: Buffer;
  let second: Buffer;

  beforeAll(
    async ({ databases, apis }) => {
      first = await speech(FIRST, MIC_RATE);
      second = await speech(SECOND, MIC_RATE);
      fake = await startFakeTranscriptions({ apiKey: 'sk-test' });
      database = await databases.empty('sqlite');
      const handle = await openTestDatabase(database);
      ws = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 1000 });
      poor = await seedWorkspace(handle, { capabilities: ['transcription'], credits: 0.5 });
      await handle.close();
      server = await apis.start(database, {
        env: {
          STT_PROVIDER: 'openai',
          STT_OPENAI_BASE_URL: fake.url,
          STT_OPENAI_API_KEY: 'sk-test',
          PRICE_STT_CREDITS_PER_MINUTE: String(PRICE),
          TOKEN_SIGNING_SECRET: SECRET,
          // Any port of 127.0.0.1; pages on localhost are refused.
          STREAM_ALLOWED_ORIGINS: 'http://127.0.0.1',
        },
      });
      const secondWav = encodeWav({
        data: Buffer.concat([silence(200, MIC_RATE), second, silence(300, MIC_RATE)]),
        sampleRateHz: MIC_RATE,
      });
      app = await startTranscriptionApp(
        server.url,
        { main: ws.productionKey, poor: poor.productionKey },
        { '/second.wav': { type: 'audio/wav', body: secondWav } },
      );
      // What the fake microphone hears, from each getUserMedia on: the two sentences, then quiet.
      const microphone = encodeWav({
        data: Buffer.concat([
          silence(300, MIC_RATE),
          first,
          silence(1500, MIC_RATE),
          second,
          silence(25_000, MIC_RATE),
        ]),
        sampleRateHz: MIC_RATE,
      });
      browser = await launchBrowser({ microphone });
      page = await openTranscriptionPage(browser, `${app.origin}/`);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fake?.close();
  });

  beforeEach(async () => {
    fake.reset();
    await page.evaluate(() => {
      window.events = [];
    });
  });

  const events = () => page.evaluate(() => window.events) as Promise<RecordedEvent[]>;
  const payloads = async (name: string) =>
    (await events()).filter((e) => e.name === name).map((e) => e.payload);
  const finalsArrived = (count: number, on: Page = page) =>
    on.waitForFunction(
      (n) => window.events.filter((e) => e.name === 'transcript' && e.payload.final).length >= n,
      count,
      { timeout: WAIT_MS },
    );
  const readSession = async (sessionId: string) => {
    const response = await fetch(`${server.url}/v1/realtime-transcription-sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  it('transcribes the microphone: utterances the api finds, exact finals, stop() with the usage, the microphone released', async () => {
    fake.say(FIRST);
    fake.say(SECOND);
    const requestsBefore = fake.requests.length;
    const started = await page.evaluate(async () => {
      window.client = new window.awp.TranscriptionClient({
        token: () => window.mintToken(),
        language: 'en',
      });
      window.recordTranscription(window.client);
      return window.client.start();
    });
    expect(started).toEqual({
      sessionId: expect.any(String),
      audioFormat: 'pcm_16000',
      language: 'en',
      interimResults: true,
      endpointing: 'vad',
    });
    await finalsArrived(2);
    const stopped = await page.evaluate(async () => {
      const track = window.client.microphoneTrack as MediaStreamTrack;
      const live = track.readyState;
      const result = await window.client.stop();
      return {
        result,
        live,
        ended: track.readyState,
        opened: window.openedTracks.map((t) => t.readyState),
        state: window.client.connectionState,
        microphoneTrack: window.client.microphoneTrack,
      };
    });
    const transcripts = await payloads('transcript');
    expect(transcripts.map((t) => [t.segmentId, t.text, t.final, t.language])).toEqual([
      [1, FIRST, true, 'en'],
      [2, SECOND, true, 'en'],
    ]);
    const [one, two] = transcripts;
    expect(one.startMs).toBeLessThan(one.endMs);
    expect(one.endMs).toBeLessThanOrEqual(two.startMs);
    const { result } = stopped;
    // The api received every sample at 16 kHz: at least both sentences and the pause between.
    expect(result.audioMs).toBeGreaterThanOrEqual(
      pcmMs(first, MIC_RATE) + 1500 + pcmMs(second, MIC_RATE),
    );
    const charge = expectedMillicredits(result.audioMs, PRICE);
    expect(result).toEqual({
      sessionId: started.sessionId,
      audioMs: result.audioMs,
      cost: { credits: charge / 1000, amount: charge / 1e6, currency: 'USD', passThrough: false },
      auditId: expect.stringMatching(/^aud_/),
      segments: transcripts,
      transcript: `${FIRST} ${SECOND}`,
    });
    expect(await payloads('finish')).toEqual([result]);
    expect(await payloads('connectionState')).toEqual([
      'connecting',
      'connected',
      'stopping',
      'disconnected',
    ]);
    expect(await payloads('error')).toEqual([]);
    expect(stopped).toMatchObject({
      live: 'live',
      ended: 'ended',
      opened: ['ended'],
      state: 'disconnected',
      microphoneTrack: null,
    });
    // The api kept what the page saw; the engine got 16 kHz speech in English, one request
    // per utterance.
    expect(await readSession(started.sessionId)).toMatchObject({
      status: 'ended',
      audio_format: 'pcm_16000',
      language: 'en',
      audio_ms: result.audioMs,
      cost: { credits: charge / 1000 },
      transcript: `${FIRST} ${SECOND}`,
    });
    expect(fake.requests.slice(requestsBefore).map((r) => [r.language, r.sampleRateHz])).toEqual([
      ['en', 16_000],
      ['en', 16_000],
    ]);
  });

  it('finalizes at flush() with manual endpointing, from the transcription-only bundle', async () => {
    const small = await openTranscriptionPage(browser, `${app.origin}/small`);
    fake.say(FIRST);
    const requestsBefore = fake.requests.length;
    const started = await small.evaluate(async (speechMs) => {
      window.client = new window.awp.TranscriptionClient({
        token: () => window.mintToken(),
        endpointing: 'manual',
      });
      window.recordTranscription(window.client);
      const session = await window.client.start();
      // Let the microphone say the first sentence.
      await new Promise((resolve) => setTimeout(resolve, speechMs));
      return session;
    }, pcmMs(first, MIC_RATE) + 500);
    expect(started).toMatchObject({ language: null, endpointing: 'manual' });
    const flushed = await small.evaluate(async () => {
      const finals = await window.client.flush();
      window.events.push({ name: 'flush() resolved', payload: null });
      const again = await window.client.flush();
      return { finals, again };
    });
    expect(flushed.finals).toEqual([
      {
        segmentId: 1,
        text: FIRST,
        final: true,
        startMs: 0,
        endMs: expect.any(Number),
      },
    ]);
    // Only flushes ended utterances (one engine request each: the second one holds the few
    // milliseconds of quiet between them, which the engine hears as nothing), and the final
    // came before flush() resolved.
    expect(flushed.again).toEqual([]);
    expect(fake.requests.length - requestsBefore).toBe(2);
    const order = (await small.evaluate(() => window.events)).map((e) => e.name);
    expect(order.filter((name) => name !== 'connectionState')).toEqual([
      'started',
      'transcript',
      'flush() resolved',
    ]);
    const result = await small.evaluate(() => window.client.stop());
    expect(result).toMatchObject({ segments: flushed.finals, transcript: FIRST });
    expect(result.audioMs).toBeGreaterThan(flushed.finals[0].endMs);
    await small.context().close();
  });

  it('transcribes a MediaStream the app already has, and leaves it running', async () => {
    fake.say(SECOND);
    const outcome = await page.evaluate(async () => {
      const openedBefore = window.openedTracks.length;
      const context = new AudioContext();
      const wav = await (await fetch('/second.wav')).arrayBuffer();
      const source = context.createBufferSource();
      source.buffer = await context.decodeAudioData(wav);
      const destination = context.createMediaStreamDestination();
      source.connect(destination);
      const played = new Promise((resolve) => {
        source.onended = resolve;
      });
      const client = new window.awp.TranscriptionClient({
        token: () => window.mintToken(),
        endpointing: 'manual',
        language: 'en-US',
      });
      window.recordTranscription(client);
      const started = client.start({ mediaStream: destination.stream });
      source.start();
      await started;
      await played;
      const finals = await client.flush();
      const result = await client.stop();
      const [track] = destination.stream.getAudioTracks();
      const outcome = {
        finals,
        result,
        track: track?.readyState,
        opened: window.openedTracks.length - openedBefore,
        microphoneTrack: client.microphoneTrack,
      };
      await context.close();
      return outcome;
    });
    expect(outcome.finals.map((t) => [t.segmentId, t.text, t.language])).toEqual([
      [1, SECOND, 'en'],
    ]);
    expect(outcome.result.transcript).toBe(SECOND);
    expect(outcome.result.audioMs).toBeGreaterThanOrEqual(pcmMs(second, MIC_RATE));
    expect(outcome).toMatchObject({ track: 'live', opened: 0, microphoneTrack: null });
    expect(fake.requests.at(-1)).toMatchObject({ language: 'en', sampleRateHz: 16_000 });
  });

  it('reports an expired token as token_expired, after the api refused it, and releases the microphone', async () => {
    const tokens = new StreamTokens(SECRET);
    const claims = {
      keyId: ws.productionKeyId,
      workspaceId: ws.workspaceId,
      environment: 'production' as const,
    };
    const stale = await tokens.mint(claims, Date.now() - 121_000, 'transcription');
    const outcome = await page.evaluate(
      async ({ token, expiresAt, apiOrigin }) => {
        const openedBefore = window.openedTracks.length;
        const client = new window.awp.TranscriptionClient({
          token: async () => ({ token, expires_at: expiresAt }),
          apiOrigin,
        });
        window.recordTranscription(client);
        const error = await client.start().then(
          () => null,
          (e) => ({ name: e.name, code: e.code, retryable: e.retryable, message: e.message }),
        );
        return {
          error,
          state: client.connectionState,
          opened: window.openedTracks.slice(openedBefore).map((t) => t.readyState),
        };
      },
      { token: stale.token, expiresAt: stale.expiresAt.toISOString(), apiOrigin: server.url },
    );
    expect(outcome.error).toEqual({
      name: 'TranscriptionError',
      code: 'token_expired',
      retryable: false,
      message: expect.stringContaining('must mint a fresh token on every call'),
    });
    expect(outcome).toMatchObject({ state: 'disconnected', opened: ['ended'] });
    expect(await payloads('error')).toEqual([
      expect.objectContaining({ code: 'token_expired', isError: true }),
    ]);
    expect(await payloads('connectionState')).toEqual(['connecting', 'disconnected']);
  });

  it('refuses a token its callback returns twice, before connecting', async () => {
    const outcome = await page.evaluate(async () => {
      const cached = await window.mintToken();
      const client = new window.awp.TranscriptionClient({ token: () => cached });
      const started = await client.start();
      await client.close();
      const closedTrack = window.openedTracks.at(-1)?.readyState;
      const error = await client.start().then(
        () => null,
        (e) => ({ code: e.code, message: e.message }),
      );
      return { sessionId: started.sessionId, closedTrack, error };
    });
    expect(outcome.closedTrack).toBe('ended');
    expect(outcome.error).toEqual({
      code: 'token_expired',
      message: expect.stringContaining('already used'),
    });
    // close() without stop: the api still keeps the session, ended.
    await expect.poll(async () => (await readSession(outcome.sessionId)).status).toBe('ended');
  });

  it('fails with connection_failed when the api refuses the page’s Origin', async () => {
    const elsewhere = await openTranscriptionPage(browser, `http://localhost:${app.port}/`);
    const error = await elsewhere.evaluate(async () => {
      const client = new window.awp.TranscriptionClient({ token: () => window.mintToken() });
      return client.start().then(
        () => null,
        (e) => ({ code: e.code, retryable: e.retryable, message: e.message }),
      );
    });
    expect(error).toEqual({
      code: 'connection_failed',
      retryable: true,
      message: expect.stringContaining('STREAM_ALLOWED_ORIGINS'),
    });
    await elsewhere.context().close();
  });

  it('passes the api’s error event through: start() rejects with insufficient_credit', async () => {
    const error = await page.evaluate(async () => {
      const client = new window.awp.TranscriptionClient({ token: () => window.mintToken('poor') });
      window.recordTranscription(client);
      return client.start().then(
        () => null,
        (e) => ({
          code: e.code,
          retryable: e.retryable,
          sessionId: e.sessionId,
          requestId: e.requestId,
        }),
      );
    });
    expect(error).toEqual({
      code: 'insufficient_credit',
      retryable: false,
      sessionId: expect.any(String),
      requestId: error?.sessionId,
    });
    expect(await payloads('error')).toEqual([
      expect.objectContaining({ code: 'insufficient_credit', isError: true }),
    ]);
  });
});
