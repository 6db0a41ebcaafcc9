// The live path with the cloud speech-to-text engine and a worker crash, in headless
// Chromium: the page built on the client library talks through the real api,
// livekit-server and agent worker, whose STT is Deepgram streaming (the fake of
// test/fakes/deepgram.ts, speaking Deepgram's live protocol). Interim results must reach
// the page as `transcriptProgress` before the final `transcript`. A job process killed mid
// session is handed over to a new job: the page waits (`reconnecting`) and hears the
// Agent again without a new connect. A whole worker killed with none to take over reaches
// the page, once the client's wait runs out, as the typed `agent_unavailable` error.

import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { FakeDeepgram } from '../../fakes/deepgram.ts';
import type { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import { speechWav } from '../../helpers/room-client.ts';
import type { RunningServer } from '../../helpers/server.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';
import type {} from '../client-sdk/harness/page.ts';
import { startTestBackend } from './harness/backend.ts';

const QUESTION = 'What is the weather like today in Paris?';

declare global {
  interface Window {
    levels: { remote: { t: number; rms: number }[]; mic: { t: number; rms: number }[] };
    micTrack: MediaStreamTrack | null;
    meterMicrophone(): void;
    stopMeters(): void;
  }
}

async function until<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// What the customer backend's page asks for: the api and the Agent, known once the rig runs.
let server: RunningServer;
let api: ApiClient;
let agentId = '';

/**
 * The Agent's greeting: long enough (about six seconds of speech) that the crash test's kill
 * lands in it however late a loaded machine lets the test see the Agent start speaking.
 */
const GREETING =
  'Hello {{user}}, I am {{char}}. I can tell you the weather, plan your day with you, and keep track of what you tell me.';

/** Creates and publishes an Agent speaking `greeting` first; its id. */
async function publishAgent(slug: string, greeting: string): Promise<string> {
  const created = await api('POST', '/v1/agents', {
    slug,
    voice_id: NATIVE_VOICE,
    llm_provider: 'openai',
    llm_model: 'gpt-4.1-mini',
    character_card: {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Ada',
        description: 'A patient tutor.',
        system_prompt: 'You are {{char}}. Be brief.',
        first_mes: greeting,
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await api('POST', `/v1/agents/${id}/publish`)).status).toBe(200);
  return id;
}

const it = realtimeTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend('backend', { scope: 'file' }, async ({}, { onCleanup }) => {
    const backend = await startTestBackend(() => ({
      agentId,
      apiOrigin: server.url,
      mint: async () => {
        const reply = await api('POST', `/v1/agents/${agentId}/session-tokens`, {});
        if (reply.status !== 201 && reply.status !== 200) {
          throw new Error(`session token: ${reply.status} ${JSON.stringify(reply.body)}`);
        }
        return reply.body as { token: string; expires_at: string };
      },
    }));
    onCleanup(() => backend.close());
    return backend;
  })
  .override('realtimeOptions', async ({ backend }) => ({
    dialect: 'postgres',
    agentName: 'awp-agent-e2e-deepgram',
    stt: 'deepgram',
    deepgram: { interimEveryMs: 250 },
    env: {
      STREAM_ALLOWED_ORIGINS: backend.origin,
      // After the hand-over's 3 s lapse: a session no job takes fails 10 s after its last beat.
      AGENT_SESSION_HEARTBEAT_TIMEOUT_MS: '10000',
    },
  }));

describe('live conversation with Deepgram streaming STT, and a worker crash (Chromium)', () => {
  let llm: FakeOpenAiChat;
  let deepgram: FakeDeepgram;
  let worker: WorkerProcess;
  let browser: TestBrowser;
  let page: Page;

  it.beforeAll(async ({ realtimeRig, backend }) => {
    ({ llm, server, worker, api } = realtimeRig);
    if (!realtimeRig.deepgram) throw new Error('the rig runs the Deepgram fake');
    deepgram = realtimeRig.deepgram;
    agentId = await publishAgent('live-deepgram-ada', GREETING);

    browser = await launchBrowser({ microphone: await speechWav(QUESTION, 300, 3500) });
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    page = await context.newPage();
    await page.goto(`${backend.origin}/`);
    await page.waitForFunction(() => window.ready === true);
  }, 180_000);

  it.afterAll(async () => {
    await page?.evaluate(() => window.client?.disconnect()).catch(() => undefined);
    await browser?.close();
  }, 60_000);

  const events = (name: string) =>
    page.evaluate((n) => window.events.filter((e) => e.name === n), name);

  it('shows Deepgram interim results as transcriptProgress before the final transcript', async () => {
    const session = await page.evaluate(async () => {
      const s = await window.client.connect();
      window.meterMicrophone();
      return s;
    });
    expect(session.agentId).toBe(agentId);
    await until(
      async () => (await events('transcript')).some((e) => e.payload.role === 'agent'),
      'the greeting',
      60_000,
    );
    // The fake hears the question in the next utterance (up to the commit's Finalize).
    deepgram.say(QUESTION);
    llm.script({ text: ['It is', ' sunny.'] });
    await page.evaluate(() => window.client.startPushToTalk());
    // Hold the key over at least one loop of the question (about 2.5 s of speech).
    await page.waitForTimeout(3000);
    await page.evaluate(() => window.client.commitPushToTalk());
    const final = await until(
      async () => (await events('transcript')).find((e) => e.payload.role === 'user'),
      'the final user transcript',
      30_000,
    );
    expect(final.payload).toMatchObject({ text: QUESTION, final: true });
    // Events are recorded in arrival order: the captions that came before the final.
    const all = await page.evaluate(() => window.events);
    const finalIndex = all.findIndex((e) => e.name === 'transcript' && e.payload.role === 'user');
    const interims = all
      .slice(0, finalIndex)
      .filter((e) => e.name === 'transcriptProgress' && e.payload.role === 'user');
    // The fake reveals one more word per 250 ms of audio and never the whole text in an
    // interim: partial captions, each a prefix of the question, arrived first.
    const partial = interims.filter(
      (e) => e.payload.text !== QUESTION && QUESTION.startsWith(e.payload.text),
    );
    expect(partial.length).toBeGreaterThanOrEqual(2);
    expect(partial[0]?.payload.text.split(' ').length).toBeLessThan(
      partial.at(-1)?.payload.text.split(' ').length ?? 0,
    );
    await until(
      async () => (await events('transcript')).find((e) => e.payload.text === 'It is sunny.'),
      'the answer',
      30_000,
    );
    expect((await events('error')).map((e) => e.payload)).toEqual([]);
    // The Agent's voice is a built-in US English one: Deepgram is asked for English.
    expect(deepgram.connections.map((c) => c.query.language)).toContain('en');
    expect(deepgram.connections.every((c) => c.query.language === 'en')).toBe(true);
    await page.evaluate(() => window.client.disconnect());
  }, 180_000);

  it('keeps the conversation when the job process is killed mid-greeting: reconnecting, then the Agent is heard again without a new connect', async () => {
    const states = () => page.evaluate(() => window.client.connectionState);
    const before = {
      errors: (await events('error')).length,
      states: (await events('connectionState')).length,
      tracks: (await events('remoteAudioTrack')).length,
      sessions: (await events('session')).length,
      speaking: (await events('agentSpeaking')).length,
      transcripts: (await events('transcript')).length,
    };
    const greetingText = GREETING.replace('{{user}}', 'Grace').replace('{{char}}', 'Ada');
    const session = await page.evaluate(async () => window.client.connect());
    const sessionId = session.sessionId as string;
    await until(
      async () =>
        (await events('agentSpeaking')).slice(before.speaking).some((e) => e.payload.speaking),
      'the greeting to start',
      60_000,
    );
    const job = worker
      .logs()
      .find((l) => l.msg === 'session job started' && l.session_id === sessionId);
    expect(job).toMatchObject({ epoch: 0, resumed: false });
    const greetings = async () =>
      (await events('transcript'))
        .slice(before.transcripts)
        .filter((e) => e.payload.text === greetingText).length;
    expect(await greetings(), 'the kill lands before the greeting ends').toBe(0);
    const killedAt = await page.evaluate(() => performance.now());
    process.kill(job?.pid as number, 'SIGKILL');
    // livekit-server reports the killed job's Agent gone once it times its connection out
    // (a resumed job's Agent may already hold its identity by then); the client waits for
    // the Agent meanwhile and goes on with whichever job holds the session.
    const statesSince = async () =>
      (await events('connectionState')).slice(before.states).map((e) => e.payload);
    await until(
      async () => (await statesSince()).includes('reconnecting'),
      'the client to wait',
      40_000,
    ).catch(async (error) => {
      const log = await page.evaluate(() =>
        window.events
          .filter((e) => e.name !== 'transcriptProgress' && e.name !== 'session')
          .slice(-16),
      );
      console.log(JSON.stringify(log));
      throw error;
    });
    await until(async () => (await states()) === 'connected', 'the Agent to join again', 30_000);
    expect((await events('connectionState')).slice(before.states).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'reconnecting',
      'connected',
    ]);
    // The lost job never finished its greeting: a resumed job says it, and it is heard.
    await until(async () => (await greetings()) > 0, 'the resumed greeting', 30_000);
    await until(
      () =>
        page.evaluate(
          (since) => window.levels.remote.filter((l) => l.t >= since && l.rms > 0.01).length > 10,
          killedAt + 1500,
        ),
      'the resumed Agent heard',
      15_000,
    );
    // The resumed job started in the session's push-to-talk (the client's mode, stored by
    // the lost job), not in automatic until the client sends its mode again: the page's open
    // microphone (the looping fake capture) could not cut the resumed greeting off.
    expect(
      worker
        .logs()
        .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
        .map((l) => [l.epoch, l.resumed, l.input_mode]),
    ).toEqual([
      [0, false, 'automatic'],
      [1, true, 'push-to-talk'],
    ]);
    expect((await events('remoteAudioTrack')).length).toBeGreaterThan(before.tracks + 1);
    // Well past LiveKit's departure timeout for the lost job's participant (15-20 s after
    // the kill), the resumed job (its own identity) still holds the conversation: it
    // answers, and no second hand-over happened.
    const pageNow = () => page.evaluate(() => performance.now());
    while ((await pageNow()) < killedAt + 25_000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const agentTurns = async () =>
      (await events('transcript')).filter((e) => e.payload.role === 'agent').length;
    const turnsBefore = await agentTurns();
    await page.evaluate(() => window.client.sendText('Are you still there?'));
    await until(
      async () => (await agentTurns()) > turnsBefore,
      'the resumed Agent answering',
      30_000,
    );
    expect(
      worker
        .logs()
        .filter((l) => l.msg === 'session job started' && l.session_id === sessionId)
        .map((l) => l.epoch),
    ).toEqual([0, 1]);
    expect((await events('connectionState')).slice(before.states).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'reconnecting',
      'connected',
    ]);
    expect((await events('error')).slice(before.errors).map((e) => e.payload)).toEqual([]);
    expect((await events('session')).length).toBe(before.sessions + 1);
    expect(await states()).toBe('connected');
    await page.evaluate(() => window.client.disconnect());
  }, 180_000);

  it('waits for the Agent when the whole worker is killed, then reports agent_unavailable once no job took the session', async () => {
    const agentTurns = async () =>
      (await events('transcript')).filter((e) => e.payload.role === 'agent').length;
    await page.evaluate(() => window.client.disconnect());
    const turnsBefore = await agentTurns();
    const session = await page.evaluate(async () => window.client.connect());
    const sessionId = session.sessionId as string;
    await until(async () => (await agentTurns()) > turnsBefore, 'the third greeting', 60_000);
    const statesBefore = (await events('connectionState')).length;
    const errorsBefore = (await events('error')).length;
    await worker.kill();
    const error = await until(
      async () => (await events('error')).slice(errorsBefore)[0],
      'the error event',
      70_000,
    );
    expect(error.payload).toEqual({
      code: 'agent_unavailable',
      message: 'The Agent did not come back in time.',
    });
    await until(
      async () => (await page.evaluate(() => window.client.connectionState)) === 'disconnected',
      'the client to disconnect',
      15_000,
    );
    expect((await events('connectionState')).slice(statesBefore).map((e) => e.payload)).toEqual([
      'reconnecting',
      'disconnected',
    ]);
    const body = await until(
      async () => {
        const reply = await api('GET', `/v1/agent-sessions/${sessionId}`);
        return reply.body.state === 'failed' ? reply.body : undefined;
      },
      'the session to be reported failed',
      30_000,
    );
    expect(body.end_reason).toBe('worker_lost');
  }, 180_000);
});
