// A live Agent conversation end to end, in headless Chromium: a page built on the client
// library gets a token from a customer backend, connects through the real api, livekit-server
// and agent worker (Silero VAD, the embedded Whisper STT, speech through /v1/tts/stream), with
// the OpenAI chat fake as the Agent's model. Chromium's fake microphone loops a WAV of
// espeak-ng asking a question; push-to-talk decides when the worker listens to it.
// One Chromium, one livekit-server, one api, one worker: the machine has two shared cores.

import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import { speechWav } from '../../helpers/room-client.ts';
import type { RunningServer } from '../../helpers/server.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';
// The declarations of `window.events`, `client` and `ready`.
import type {} from '../client-sdk/harness/page.ts';
import { startTestBackend, type TestBackend } from './harness/backend.ts';

const QUESTION = 'What is the weather like today in Paris?';
/** RMS (WebAudio floats) above which audio counts as sound; silence reads ~0. */
const LOUD = 0.01;

// `events`, `client` and `ready` are declared by the client library's test harness (the same
// names and types); the rest is this page's own.
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
    agentName: 'awp-agent-e2e',
    stt: 'embedded',
    env: { STREAM_ALLOWED_ORIGINS: backend.origin },
  }));

describe('live Agent conversation in Chromium (client library, api, livekit-server, worker)', () => {
  let handle: DatabaseHandle;
  let llm: FakeOpenAiChat;
  let worker: WorkerProcess;
  let backend: TestBackend;
  let browser: TestBrowser;
  let page: Page;

  it.beforeAll(async ({ realtimeRig, backend: started }) => {
    ({ handle, llm, server, worker, api } = realtimeRig);
    backend = started;
    const created = await api('POST', '/v1/agents', {
      slug: 'live-e2e-ada',
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
          first_mes: 'Hello {{user}}, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);

    browser = await launchBrowser({ microphone: await speechWav(QUESTION, 300, 3500) });
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    page = await context.newPage();
    await page.goto(`${backend.origin}/`);
    await page.waitForFunction(() => window.ready === true);
  }, 180_000);

  it.afterAll(async () => {
    if (process.env.WORKER_LOG) {
      (await import('node:fs')).writeFileSync(process.env.WORKER_LOG, worker?.output() ?? '');
    }
    await page?.evaluate(() => window.client?.disconnect()).catch(() => undefined);
    await browser?.close();
  }, 60_000);

  const events = (name: string) =>
    page.evaluate((n) => window.events.filter((e) => e.name === n), name);
  const transcripts = async (role: string) =>
    (await events('transcript')).map((e) => e.payload).filter((p) => p.role === role);
  /** Loud remote (agent) audio measured in the page since page time `since`. */
  const remoteLoudSince = (since: number) =>
    page.evaluate(
      ({ since, loud }) => window.levels.remote.filter((l) => l.t >= since && l.rms > loud).length,
      { since, loud: LOUD },
    );
  const pageNow = () => page.evaluate(() => performance.now());
  /**
   * Waits, in the page, until the looping microphone file is in its silence after the
   * question (sound, then `quietMs` of quiet), so what follows starts before the next question.
   */
  const waitForQuietAfterQuestion = (quietMs: number, timeoutMs = 15_000) =>
    page.evaluate(
      async ({ quietMs, timeoutMs, loud }) => {
        const started = performance.now();
        let heard = false;
        while (performance.now() - started < timeoutMs) {
          const levels = window.levels.mic.filter((l) => l.t >= started);
          const lastLoud = levels.filter((l) => l.rms > loud).at(-1);
          if (lastLoud) heard = true;
          if (heard && lastLoud && performance.now() - lastLoud.t >= quietMs) return true;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error('the microphone never went quiet after speech');
      },
      { quietMs, timeoutMs, loud: LOUD },
    );

  it('greets, answers a push-to-talk question and sendText, is interrupted mid-sentence, and releases the microphone', async () => {
    // Connect (push-to-talk, the library's default): the backend minted the token.
    const session = await page.evaluate(async () => {
      const s = await window.client.connect();
      window.meterMicrophone();
      return { ...s, state: window.client.connectionState, mode: window.client.inputMode };
    });
    expect(session).toMatchObject({ agentId, state: 'connected', mode: 'push-to-talk' });
    expect(backend.tokensMinted()).toBe(1);
    const sessionId = session.sessionId as string;

    // The first_mes greeting, as text and as audio that is not silent.
    const greeting = await until(
      async () => (await transcripts('agent'))[0],
      'the greeting transcript',
      60_000,
    );
    expect(greeting).toMatchObject({ text: 'Hello Grace, I am Ada.', final: true });
    await until(async () => (await remoteLoudSince(0)) > 10, 'greeting audio in the page', 20_000);
    const agentCaptions = (await events('transcriptProgress')).filter(
      (e) => e.payload.role === 'agent',
    );
    expect(agentCaptions.length).toBeGreaterThan(0);
    expect(agentCaptions.map((e) => e.payload.text).join(' ')).toContain('Grace');

    // The question by voice, with push-to-talk held over exactly one loop of the file.
    llm.script({ text: ['It is', ' sunny', ' in Paris.'] });
    await until(
      async () => (await events('agentSpeaking')).at(-1)?.payload.speaking === false,
      'the greeting to end',
      20_000,
    );
    await waitForQuietAfterQuestion(1000);
    await page.evaluate(() => window.client.startPushToTalk());
    await waitForQuietAfterQuestion(700);
    const committedAt = Date.now();
    await page.evaluate(() => window.client.commitPushToTalk());
    const asked = await until(
      async () => (await transcripts('user'))[0],
      'the user transcript of the spoken question',
      20_000,
    );
    // Opus over WebRTC and Whisper base: "weather" is sometimes heard as another word.
    expect(asked.text.toLowerCase()).toMatch(/^what is .*paris\W*$/);
    const userCaptions = (await events('transcriptProgress')).filter(
      (e) => e.payload.role === 'user',
    );
    expect(userCaptions.some((e) => /paris/i.test(e.payload.text))).toBe(true);
    const answer = await until(
      async () => (await transcripts('agent')).find((t) => t.text === 'It is sunny in Paris.'),
      'the answer to the spoken question',
      20_000,
    );
    expect(answer.final).toBe(true);
    // Answered at the commit, not when the session ends.
    expect(Date.now() - committedAt).toBeLessThan(15_000);
    const spokenRequest = llm.requests.at(-1)?.body as {
      messages: { role: string; content: string }[];
    };
    expect(spokenRequest.messages.at(-1)?.content.toLowerCase()).toContain('paris');

    // The same by text.
    llm.script({ text: ['London', ' is rainy.'] });
    await page.evaluate(() => window.client.sendText('And what about London?'));
    await until(
      async () => (await transcripts('agent')).find((t) => t.text === 'London is rainy.'),
      'the answer to sendText',
      20_000,
    );
    expect((await transcripts('user')).map((t) => t.text)).toContain('And what about London?');
    const textRequest = llm.requests.at(-1)?.body as {
      messages: { role: string; content: string }[];
    };
    expect(textRequest.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'And what about London?',
    });

    // Interrupted mid-sentence: the agent's audio stops in the page.
    const story = Array.from(
      { length: 12 },
      (_, i) => ` Sentence number ${i + 1} of a long story.`,
    );
    llm.script({ text: story, deltaDelayMs: 20 });
    const storyFrom = await pageNow();
    await page.evaluate(() => window.client.sendText('Tell me a long story.'));
    await until(async () => (await remoteLoudSince(storyFrom)) > 40, 'the story audio', 30_000);
    const interruptAt = await pageNow();
    await page.evaluate(() => window.client.interrupt());
    const stoppedAt = await until(
      async () =>
        page.evaluate(
          ({ since, loud }) => {
            const last = window.levels.remote.filter((l) => l.t >= since && l.rms > loud).at(-1);
            const lastT = last?.t ?? since;
            return performance.now() - lastT > 800 ? lastT : undefined;
          },
          { since: interruptAt, loud: LOUD },
        ),
      'the story audio to stop',
      10_000,
    );
    expect(stoppedAt - interruptAt).toBeLessThan(1000);
    await until(
      async () => (await events('agentSpeaking')).at(-1)?.payload.speaking === false,
      'agentSpeaking false',
      10_000,
    );

    // The interrupted reply reaches the page and the database as far as it was spoken.
    const fullStory = story.join('').trim();
    const spoken = await until(
      async () => (await transcripts('agent')).find((t) => t.text.startsWith('Sentence number')),
      'the interrupted story transcript',
      10_000,
    );
    expect(fullStory.startsWith(spoken.text)).toBe(true);
    expect(spoken.text.length).toBeLessThan(fullStory.length / 2);
    const row = await handle.db
      .selectFrom('agent_session_messages')
      .select(['text', 'interrupted'])
      .where('id', '=', spoken.id)
      .executeTakeFirstOrThrow();
    expect({ text: row.text, interrupted: Number(row.interrupted) }).toEqual({
      text: spoken.text,
      interrupted: 1,
    });

    // Disconnect: the microphone is released, the session ends.
    const released = await page.evaluate(async () => {
      const track = window.micTrack;
      await window.client.disconnect();
      window.stopMeters();
      return {
        state: window.client.connectionState,
        readyState: track?.readyState,
        microphone: window.client.microphoneTrack,
      };
    });
    expect(released).toEqual({ state: 'disconnected', readyState: 'ended', microphone: null });
    const body = await until(
      async () => {
        const reply = await api('GET', `/v1/agent-sessions/${sessionId}`);
        return reply.body.state === 'ended' ? reply.body : undefined;
      },
      'the session to end',
      15_000,
    );
    expect(body.end_reason).toBe('user_left');
    expect((await events('error')).map((e) => e.payload)).toEqual([]);
  }, 300_000);
});
